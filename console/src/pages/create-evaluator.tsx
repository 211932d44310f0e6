import { useEffect, useState } from "preact/hooks";
import { messageOf, useApi } from "../api.ts";
import { createWorkflow, listPresets, listTemplates, type Preset, type Template } from "../create/catalog.ts";
import { knownColumns } from "../create/known-columns.ts";
import { emptyNaming, NameFields, namingError, type Naming } from "../create/name-fields.tsx";
import {
  draftOfParameters, ParameterFields, parametersOfDraft, type ParameterDraft,
} from "../create/parameter-fields.tsx";
import { TemplatePicker } from "../create/template-picker.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Link } from "../components/link.tsx";
import { Loading } from "../components/loading.tsx";
import { navigate, type ViewProps } from "../router.ts";

const schemaOf = (t: Template) => (t.data as Record<string, any>)?.schemas?.parameters ?? null;

/** The parameters a template starts with: its own, else each property's default. */
function defaultsOf(t: Template): Record<string, unknown> {
  const own = (t.data as Record<string, any>)?.parameters;
  if (own && typeof own === "object") return own;
  const properties: Record<string, { default?: unknown }> = schemaOf(t)?.properties ?? {};
  const given = Object.entries(properties).filter(([, p]) => p.default !== undefined);
  return Object.fromEntries(given.map(([k, p]) => [k, p.default]));
}

/**
 * `/evaluators/new`: a built-in evaluator template (exact match, regex, JSON field, similarity, LLM-as-a-judge …),
 * one of its presets, its settings as a form (a column chosen among the testsets' columns); "Create" opens it.
 */
export function CreateEvaluatorPage({ query }: ViewProps) {
  const loaded = useApi(async (signal) => {
    const [templates, columns] = await Promise.all([listTemplates("evaluators", signal), knownColumns(signal)]);
    return { templates: templates.filter((t) => t.categories?.includes("builtin")), columns };
  }, []);
  const [chosen, setChosen] = useState<string | null>(query.get("template"));
  const [presets, setPresets] = useState<Preset[]>([]);
  const [preset, setPreset] = useState("");
  const [naming, setNaming] = useState<Naming>(emptyNaming);
  const [draft, setDraft] = useState<ParameterDraft>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const template = loaded.data?.templates.find((t) => t.key === chosen) ?? null;
  useEffect(() => {
    if (!loaded.data) return;
    const first = template ?? loaded.data.templates.find((t) => t.flags?.is_recommended) ?? loaded.data.templates[0];
    if (first && first.key !== chosen) setChosen(first.key);
  }, [loaded.data]);
  useEffect(() => {
    if (!template) return;
    setDraft(draftOfParameters(schemaOf(template), defaultsOf(template)));
    setErrors({});
    setPresets([]);
    setPreset("");
    const controller = new AbortController();
    listPresets("evaluators", template.key, controller.signal).then((found) => {
      setPresets(found);
      const start = found.find((p) => p.key === "default");
      if (start) choosePreset(template, start);
    }, (e) => !controller.signal.aborted && setError(messageOf(e)));
    return () => controller.abort();
  }, [template?.key]);

  const choosePreset = (t: Template, p: Preset | undefined) => {
    setPreset(p?.key ?? "");
    const parameters = (p?.data as Record<string, any> | undefined)?.parameters;
    setDraft(draftOfParameters(schemaOf(t), { ...defaultsOf(t), ...(parameters ?? {}) }));
  };

  if (loaded.error) return <ErrorBanner message={loaded.error} onRetry={loaded.reload} />;
  if (!loaded.data) return <Loading />;
  const { templates, columns } = loaded.data;

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!template) return;
    setError(null);
    const problem = namingError(naming);
    const built = parametersOfDraft(schemaOf(template), draft);
    setErrors(built.errors);
    if (problem) return setError(problem);
    if (!built.parameters) return setError("Some fields need attention (marked below).");
    setBusy(true);
    try {
      const data = { uri: (template.data as Record<string, any>).uri, parameters: built.parameters };
      const id = await createWorkflow("evaluators", { slug: naming.slug, name: naming.name.trim() }, data);
      navigate(`/evaluators/${id}`);
    } catch (e) {
      setError(messageOf(e));
      setBusy(false);
    }
  };

  return (
    <form class="create" noValidate onSubmit={submit} aria-labelledby="create-title">
      <p class="crumbs"><Link href="/registry?kind=evaluators">Registry</Link></p>
      <h1 id="create-title">New evaluator</h1>
      <TemplatePicker label="What it checks" templates={templates} chosen={template?.key ?? null}
        onChoose={setChosen} />
      <NameFields naming={naming} onChange={setNaming} what="evaluator" />
      {template && presets.length > 0 && (
        <div class="field">
          <label for="create-preset">Preset</label>
          <select id="create-preset" value={preset}
            onChange={(e) => choosePreset(template, presets.find((p) => p.key === e.currentTarget.value))}>
            <option value="">None (the template's defaults)</option>
            {presets.map((p) => <option value={p.key}>{p.name ?? p.key}</option>)}
          </select>
          {presets.find((p) => p.key === preset)?.description && (
            <p class="muted field-hint">{presets.find((p) => p.key === preset)!.description}</p>
          )}
        </div>
      )}
      {template && (
        <fieldset class="create-settings">
          <legend>Settings</legend>
          <ParameterFields schema={schemaOf(template)} draft={draft} onChange={setDraft} errors={errors}
            columns={columns} />
        </fieldset>
      )}
      {error && <div class="banner banner-error" role="alert">{error}</div>}
      <div class="create-actions">
        <button type="submit" class="button-primary"
          disabled={busy || !template}>{busy ? "Creating…" : "Create evaluator"}</button>
        <Link href="/registry?kind=evaluators">Cancel</Link>
      </div>
    </form>
  );
}
