import { useEffect, useState } from "preact/hooks";
import { messageOf, useApi } from "../api.ts";
import { createWorkflow, listTemplates, type Family, type Template } from "../create/catalog.ts";
import { emptyNaming, NameFields, namingError, type Naming } from "../create/name-fields.tsx";
import { TemplatePicker } from "../create/template-picker.tsx";
import { templateShape, workflowData, type WorkflowForm } from "../create/workflow-data.ts";
import { ErrorBanner } from "../components/error-banner.tsx";
import { JsonEditor } from "../components/json-editor.tsx";
import { Link } from "../components/link.tsx";
import { Loading } from "../components/loading.tsx";
import { navigate, type ViewProps } from "../router.ts";
import { draftOf, PromptForm } from "./prompt-form.tsx";

const WHAT: Record<"applications" | "workflows", string> = { applications: "application", workflows: "workflow" };

/**
 * `/applications/new` (and `/workflows/new`): a template from the catalog (completion, chat, hook, code,
 * mock), a name, the template's fields; "Create" commits the first revision and opens the new artifact.
 */
export function CreateWorkflowPage({ query, kind }: ViewProps & { kind: "applications" | "workflows" }) {
  const family: Family = kind;
  const loaded = useApi((signal) => listTemplates(family, signal), [family]);
  const [chosen, setChosen] = useState<string | null>(query.get("template"));
  const [naming, setNaming] = useState<Naming>(emptyNaming);
  const [form, setForm] = useState<WorkflowForm>({ prompt: null, url: "", script: "", parameters: "{}" });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const choose = (t: Template) => {
    const data = t.data as Record<string, any>;
    setChosen(t.key);
    setErrors({});
    setForm({
      prompt: templateShape(t) === "prompt" ? draftOf(data.parameters.prompt) : null,
      url: "",
      script: typeof data.script === "string" ? data.script : "",
      parameters: JSON.stringify(data.parameters ?? {}, null, 2),
    });
  };
  useEffect(() => {
    const all = loaded.data ?? [];
    const first = all.find((t) => t.key === chosen) ?? all[0];
    if (first) choose(first);
  }, [loaded.data]);

  if (loaded.error) return <ErrorBanner message={loaded.error} onRetry={loaded.reload} />;
  if (!loaded.data) return <Loading />;
  const templates = loaded.data;
  const template = templates.find((t) => t.key === chosen) ?? null;
  const shape = template ? templateShape(template) : null;

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!template) return;
    setError(null);
    const problem = namingError(naming);
    const built = workflowData(template, form);
    setErrors(built.errors);
    if (problem) return setError(problem);
    if (!built.data) return setError("Some fields need attention (marked below).");
    setBusy(true);
    try {
      const id = await createWorkflow(family, { slug: naming.slug, name: naming.name.trim() }, built.data);
      navigate(`/${kind}/${id}`);
    } catch (e) {
      setError(messageOf(e));
      setBusy(false);
    }
  };

  return (
    <form class="create" noValidate onSubmit={submit} aria-labelledby="create-title">
      <p class="crumbs"><Link href={`/registry?kind=${kind}`}>Registry</Link></p>
      <h1 id="create-title">New {WHAT[kind]}</h1>
      <TemplatePicker label="Start from" templates={templates} chosen={template?.key ?? null}
        onChoose={(key) => choose(templates.find((t) => t.key === key)!)} />
      <NameFields naming={naming} onChange={setNaming} what={WHAT[kind]} />
      {shape === "prompt" && form.prompt && (
        <PromptForm draft={form.prompt} errors={errors} onChange={(prompt) => setForm({ ...form, prompt })} />
      )}
      {shape === "hook" && (
        <div class={`field${errors.url ? " field-invalid" : ""}`}>
          <label for="hook-url">Service URL</label>
          <input id="hook-url" type="url" placeholder="https://my-service.example.com" value={form.url}
            onInput={(e) => setForm({ ...form, url: e.currentTarget.value })} />
          <p class="muted field-hint">
            Each run is sent to <code>POST &lt;URL&gt;/invoke</code> with the inputs and parameters.
          </p>
          {errors.url && <p class="field-error">{errors.url}</p>}
        </div>
      )}
      {shape === "code" && (
        <div class={`field${errors.script ? " field-invalid" : ""}`}>
          <label for="code-script">Script (JavaScript)</label>
          <textarea id="code-script" class="code-input" rows={12} spellcheck={false} value={form.script}
            onInput={(e) => setForm({ ...form, script: e.currentTarget.value })} />
          {errors.script && <p class="field-error">{errors.script}</p>}
        </div>
      )}
      {shape !== "prompt" && shape !== null && (
        <JsonEditor id="create-parameters" label="Parameters (JSON)" rows={6} value={form.parameters}
          error={errors.parameters}
          onInput={(parameters) => setForm({ ...form, parameters })} />
      )}
      {error && <div class="banner banner-error" role="alert">{error}</div>}
      <div class="create-actions">
        <button type="submit" class="button-primary"
          disabled={busy || !template}>{busy ? "Creating…" : `Create ${WHAT[kind]}`}</button>
        <Link href={`/registry?kind=${kind}`}>Cancel</Link>
      </div>
    </form>
  );
}
