import { useEffect, useRef, useState } from "preact/hooks";
import { api, messageOf, useApi } from "../api.ts";
import { queryArtifacts, queryVariants } from "../artifacts.ts";
import { EmptyState } from "../components/empty-state.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { IdChip } from "../components/id-chip.tsx";
import { Link } from "../components/link.tsx";
import { Loading } from "../components/loading.tsx";
import { invokeStreaming, type InvokeResult, type InvokeTarget } from "../invoke.ts";
import { revisionInputs } from "../prompt.ts";
import { queryArtifactRevisions, type Revision } from "../revisions.ts";
import { setQuery, type ViewProps } from "../router.ts";
import { TestcasePicker } from "./testcase-picker.tsx";
import { TracePanel } from "./trace-panel.tsx";

/**
 * `/playground?app=…&revision=…|env=…`: runs an application's revision (or what an environment deployed)
 * with inputs typed in or taken from a testset row, shows the output as it streams in, and its trace.
 */
export function PlaygroundPage({ query }: ViewProps) {
  const app = query.get("app") ?? "";
  const revision = query.get("revision") ?? "";
  const env = query.get("env") ?? "";
  const apps = useApi((signal) => queryArtifacts("applications", { limit: 200 }, signal), []);
  const environments = useApi((signal) => queryArtifacts("environments", { limit: 200 }, signal), []);
  const versions = useApi(async (signal) => {
    if (!app) return null;
    const [variants, revisions] = await Promise.all([queryVariants("applications", app, signal), queryArtifactRevisions("applications", app, signal)]);
    return { variants, revisions };
  }, [app]);
  // The revision that runs: the one picked, or the one the environment has deployed.
  const target = useApi(async (signal): Promise<Revision | null> => {
    if (!app || (!revision && !env)) return null;
    const ref = revision ? { application_revision_ref: { id: revision } } : { application_ref: { id: app }, environment_ref: { slug: env } };
    const answer = await api("POST", "/applications/revisions/retrieve", ref, { signal });
    return answer.application_revision ?? null;
  }, [app, revision, env]);

  // Without a choice yet, the newest revision of the application.
  useEffect(() => {
    const newest = versions.loading ? undefined : versions.data?.revisions[0];
    if (app && !revision && !env && newest?.artifact_id === app) setQuery({ revision: newest.id });
  }, [app, revision, env, versions.data, versions.loading]);

  const variantSlug = (id: string) => versions.data?.variants.find((v) => v.id === id)?.slug ?? "variant";
  const choice = revision ? `revision:${revision}` : env ? `env:${env}` : "";
  const choose = (value: string) => {
    const [what, id] = [value.slice(0, value.indexOf(":")), value.slice(value.indexOf(":") + 1)];
    setQuery({ revision: what === "revision" ? id : null, env: what === "env" ? id : null });
  };

  return (
    <>
      <h1>Playground</h1>
      <ErrorBanner message={apps.error ?? environments.error} onRetry={() => { apps.reload(); environments.reload(); }} />
      <div class="pg-pick">
        <div class="field">
          <label for="pg-app">Application</label>
          <select id="pg-app" value={app} onChange={(e) => setQuery({ app: (e.target as HTMLSelectElement).value, revision: null, env: null })}>
            <option value="">Choose an application…</option>
            {apps.data?.items.map((a) => <option value={a.id}>{a.name || a.slug}</option>)}
          </select>
        </div>
        <div class="field">
          <label for="pg-version">Revision or environment</label>
          <select id="pg-version" value={choice} disabled={!app || !versions.data} onChange={(e) => choose((e.target as HTMLSelectElement).value)}>
            {!choice && <option value="">Choose…</option>}
            <optgroup label="Environments (what is deployed)">
              {environments.data?.items.map((e) => <option value={`env:${e.slug}`}>{e.name || e.slug}</option>)}
            </optgroup>
            <optgroup label="Revisions">
              {versions.data?.revisions.map((r) => (
                <option value={`revision:${r.id}`}>{variantSlug(r.variant_id)} v{r.version}{r.message ? ` · ${r.message.slice(0, 60)}` : ""}</option>
              ))}
            </optgroup>
          </select>
        </div>
      </div>
      {apps.data && apps.data.items.length === 0 && (
        <EmptyState title="No applications yet"><p>Create one with the API or the <code>tessera</code> command line, then try it here.</p></EmptyState>
      )}
      <ErrorBanner message={versions.error ?? target.error} onRetry={() => { versions.reload(); target.reload(); }} />
      {target.loading && (revision || env) && <Loading />}
      {!target.loading && target.data && target.data.artifact_id === app && <Runner key={target.data.id} revision={target.data}
        target={revision ? { revisionId: revision } : { applicationId: app, environment: env }} />}
    </>
  );
}

type Run = { state: "running"; text: string } | { state: "finished"; text: string; result: InvokeResult };

/** The inputs of a revision, the run, its streamed output and its trace. */
function Runner(props: { revision: Revision; target: InvokeTarget }) {
  const inputs = revisionInputs(props.revision.data);
  const [values, setValues] = useState<Record<string, string>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [run, setRun] = useState<Run | null>(null);
  const [showTrace, setShowTrace] = useState(false);
  const controller = useRef<AbortController | null>(null);
  useEffect(() => () => controller.current?.abort(), []);

  const start = async (event: Event) => {
    event.preventDefault();
    const body: Record<string, unknown> = {};
    const problems: Record<string, string> = {};
    for (const input of inputs) {
      const text = values[input.name] ?? "";
      if (input.type === "string") body[input.name] = text;
      else if (text.trim() !== "") {
        try {
          body[input.name] = JSON.parse(text);
        } catch {
          problems[input.name] = `Not valid JSON (this input is ${input.type === "array" ? "an array" : `a${/^[aeiou]/.test(input.type) ? "n" : ""} ${input.type}`})`;
        }
      }
    }
    setErrors(problems);
    if (Object.keys(problems).length) return;
    controller.current?.abort();
    const abort = new AbortController();
    controller.current = abort;
    setShowTrace(false);
    setRun({ state: "running", text: "" });
    try {
      const result = await invokeStreaming(props.target, body, (text) => setRun({ state: "running", text }), abort.signal);
      setRun((r) => ({ state: "finished", text: r?.text ?? "", result }));
    } catch (error) {
      if (abort.signal.aborted) {
        setRun((r) => ({ state: "finished", text: r?.text ?? "", result: { ok: false, outputs: r?.text ?? null, traceId: null, error: "Stopped", status: 0 } }));
      } else setRun((r) => ({ state: "finished", text: r?.text ?? "", result: { ok: false, outputs: null, traceId: null, error: messageOf(error), status: 0 } }));
    }
  };

  const fill = (data: Record<string, unknown>) => {
    const next = { ...values };
    for (const input of inputs) {
      if (!(input.name in data)) continue;
      const value = data[input.name];
      next[input.name] = typeof value === "string" ? value : JSON.stringify(value, null, 2);
    }
    setValues(next);
  };

  const result = run?.state === "finished" ? run.result : null;
  const output = result?.ok ? (typeof result.outputs === "string" ? result.outputs : JSON.stringify(result.outputs, null, 2)) : run?.text ?? "";
  return (
    <div class="pg-layout">
      <form class="pg-inputs" onSubmit={start} noValidate>
        <h2>Inputs <span class="muted pg-version">v{props.revision.version}</span></h2>
        {inputs.length === 0 && <p class="muted">This revision names no inputs.</p>}
        {inputs.map((input) => (
          <div class={`field${errors[input.name] ? " field-invalid" : ""}`}>
            <label for={`pg-input-${input.name}`}>{input.name}{input.type !== "string" && <span class="muted"> ({input.type}, JSON)</span>}</label>
            <textarea id={`pg-input-${input.name}`} rows={input.type === "string" ? 2 : 4} value={values[input.name] ?? ""}
              class={input.type === "string" ? undefined : "code-input"} aria-invalid={errors[input.name] ? "true" : undefined}
              aria-describedby={errors[input.name] ? `pg-input-${input.name}-error` : undefined}
              onInput={(e) => setValues({ ...values, [input.name]: (e.target as HTMLTextAreaElement).value })} />
            {errors[input.name] && <p class="field-error" id={`pg-input-${input.name}-error`}>{errors[input.name]}</p>}
          </div>
        ))}
        <TestcasePicker onPick={fill} />
        <div class="edit-actions">
          <button type="submit" class="button-primary" disabled={run?.state === "running"}>{run?.state === "running" ? "Running…" : "Run"}</button>
          {run?.state === "running" && <button type="button" onClick={() => controller.current?.abort()}>Stop</button>}
        </div>
      </form>
      <section class="pg-output" aria-labelledby="pg-output-title">
        <h2 id="pg-output-title">Output</h2>
        {result && !result.ok && <ErrorBanner message={result.error} />}
        <pre class="pg-output-text" aria-live="polite" aria-busy={run?.state === "running" ? "true" : "false"} data-state={run?.state ?? "idle"}>
          {run ? output || (run.state === "running" ? "…" : "") : <span class="muted">Run the application to see its output here.</span>}
        </pre>
        {result?.traceId && (
          <div class="pg-trace">
            <span class="muted">Trace</span> <IdChip id={result.traceId} label="trace id" />
            <button type="button" class="button-small" aria-expanded={showTrace} onClick={() => setShowTrace(!showTrace)}>{showTrace ? "Hide trace" : "Show trace"}</button>
            <Link href={`/traces/${result.traceId}`}>Open in Traces</Link>
          </div>
        )}
        {showTrace && result?.traceId && <TracePanel traceId={result.traceId} />}
        <p class="muted pg-edit-link">
          <Link href={`/applications/${props.revision.artifact_id}/variants/${props.revision.variant_id}/edit?revision=${props.revision.id}`}>Edit this revision</Link>
        </p>
      </section>
    </div>
  );
}
