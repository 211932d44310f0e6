import { useEffect, useRef, useState } from "preact/hooks";
import { messageOf } from "../api.ts";
import { invokeStreaming, type InvokeResult } from "../invoke.ts";
import { draftOf, PromptForm, promptOfDraft, type PromptDraft } from "../pages/prompt-form.tsx";
import { promptOf, revisionInputs } from "../prompt.ts";
import { fetchRevision, type Revision } from "../revisions.ts";
import { columnCall, columnModel, type Column } from "./column.ts";
import { CommitDraft } from "./commit-draft.tsx";
import { InputFields, parseInputs } from "./input-fields.tsx";
import { OutputColumn, type Run } from "./output-column.tsx";
import { RowFinder } from "./row-finder.tsx";
import { runMetrics } from "./run-metrics.ts";

/** Most columns one run compares. */
const MAX_COLUMNS = 4;

/**
 * The playground's bench for one revision: its prompt and settings as an editable draft, run without committing
 * (the draft's parameters go inline with the invoke request) beside other configurations on the same inputs,
 * then committed as the variant's next revision.
 */
export function Workbench(props: {
  revision: Revision; revisions: Revision[]; variantSlug: (id: string) => string;
  onCommitted: (revision: Revision) => void; onOpen: (revision: Revision) => void;
}) {
  const { revision, revisions } = props;
  const original = revision.data ?? {};
  const originalPrompt = promptOf(original);
  const [draft, setDraft] = useState<PromptDraft | null>(() => (originalPrompt ? draftOf(originalPrompt) : null));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [values, setValues] = useState<Record<string, string>>({});
  const [inputErrors, setInputErrors] = useState<Record<string, string>>({});
  const [columns, setColumns] = useState<Column[]>([{ key: 0, source: "draft", model: "" }]);
  const [runs, setRuns] = useState<Record<number, Run>>({});
  // The revisions columns run, with their data (the list of revisions comes without it).
  const [fetched, setFetched] = useState<Record<string, Revision>>({});
  const controller = useRef<AbortController | null>(null);
  useEffect(() => () => controller.current?.abort(), []);
  useEffect(() => {
    for (const { source } of columns) {
      if (source === "draft" || fetched[source]) continue;
      fetchRevision("applications", source).then((r) => setFetched((all) => ({ ...all, [r.id]: r })), () => undefined);
    }
  }, [columns]);
  const detailed = Object.values(fetched);

  /** The revision data the draft describes (the stored data when the form cannot show it), or its problems. */
  const built = (): { data?: Record<string, any>; errors: Record<string, string> } => {
    if (!draft || !originalPrompt) return { data: original, errors: {} };
    const next = promptOfDraft(originalPrompt, draft);
    if (!next.prompt) return { errors: next.errors };
    return { data: { ...original, parameters: { ...(original.parameters ?? {}), prompt: next.prompt } }, errors: {} };
  };
  const now = built();
  // Compared with the form's own reading of the stored prompt, so that opening a revision is no edit.
  const [pristine] = useState(() =>
    (originalPrompt ? JSON.stringify(promptOfDraft(originalPrompt, draftOf(originalPrompt)).prompt) : ""));
  const changed = !now.data || (!!originalPrompt && JSON.stringify(now.data.parameters?.prompt) !== pristine);
  const draftParameters = now.data?.parameters ?? original.parameters ?? {};
  // The inputs of every configuration in a column: the draft's variables first.
  const typed = draft && originalPrompt
    ? { ...originalPrompt, messages: draft.messages, template_format: draft.templateFormat } : null;
  const sources = [
    typed ? { ...original, parameters: { ...(original.parameters ?? {}), prompt: typed } } : original,
    ...columns.filter((c) => c.source !== "draft").map((c) => fetched[c.source]?.data),
  ];
  const inputs = sources.flatMap((data) => revisionInputs(data))
    .filter((input, i, all) => all.findIndex((x) => x.name === input.name) === i);
  const running = Object.values(runs).some((r) => r.state === "running");

  const setRun = (key: number, update: (run: Run | undefined) => Run) =>
    setRuns((all) => ({ ...all, [key]: update(all[key]) }));
  const runColumn = async (column: Column, body: Record<string, unknown>, signal: AbortSignal) => {
    setRun(column.key, () => ({ state: "running", text: "" }));
    const finish = (result: InvokeResult) => setRun(column.key, (r) => invokeFinished(result, r));
    try {
      // A revision picked a moment ago may not be fetched yet: its model override needs its data.
      const missing = column.source !== "draft" && !fetched[column.source];
      const known = missing ? [...detailed, await fetchRevision("applications", column.source, signal)] : detailed;
      const call = columnCall(column, revision, { parameters: draftParameters, changed }, known);
      const streamed = (text: string) => setRun(column.key, () => ({ state: "running", text }));
      const result = await invokeStreaming(call.target, body, streamed, signal, call.parameters);
      finish(result);
      if (result.traceId) {
        const metrics = await runMetrics(result.traceId, signal).catch(() => null);
        setRun(column.key, (r) => (r?.state === "finished" ? { ...r, metrics } : r!));
      }
    } catch (error) {
      const message = signal.aborted ? "Stopped" : messageOf(error);
      finish({ ok: false, outputs: null, traceId: null, error: message, status: 0 });
    }
  };

  const start = (event: Event) => {
    event.preventDefault();
    if (!now.data) {
      setErrors(now.errors);
      return;
    }
    setErrors({});
    const parsed = parseInputs(inputs, values);
    setInputErrors(parsed.errors);
    if (!parsed.body) return;
    controller.current?.abort();
    const abort = new AbortController();
    controller.current = abort;
    setRuns({});
    for (const column of columns) void runColumn(column, parsed.body, abort.signal);
  };

  const committable = () => {
    if (now.data) return now.data;
    setErrors(now.errors);
    return null;
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
  const draftLabel = changed ? "Your draft" : `v${revision.version} as committed`;
  const addColumn = () =>
    setColumns([...columns, { key: Math.max(...columns.map((c) => c.key)) + 1, source: "draft", model: "" }]);
  const discard = () => {
    setDraft(draftOf(originalPrompt!));
    setErrors({});
  };

  return (
    <div class="pg-bench">
      <section class="pg-config" aria-labelledby="pg-config-title">
        <h2 id="pg-config-title">
          Prompt{" "}
          <span class="muted pg-version">{revision.variant_slug} v{revision.version}{changed ? " · edited" : ""}</span>
        </h2>
        {changed && draft && (
          <button type="button" class="button-small button-quiet pg-discard" onClick={discard}>
            Discard edits
          </button>
        )}
        {draft ? (
          <>
            <CommitDraft base={revision} changed={changed} data={committable}
              onErrors={setErrors} onCommitted={props.onCommitted} onOpen={props.onOpen} />
            <PromptForm draft={draft} errors={errors} onChange={setDraft} />
          </>
        ) : (
          <p class="muted">This revision's configuration is not a prompt with text messages: it runs as committed.</p>
        )}
      </section>
      <div class="pg-run">
        <form class="pg-inputs" onSubmit={start} noValidate aria-label="Inputs">
          <h2>Inputs</h2>
          <InputFields inputs={inputs} values={values} errors={inputErrors} onChange={setValues} />
          <div class="edit-actions">
            <button type="submit" class="button-primary" disabled={running}>{running ? "Running…" : "Run"}</button>
            {running && <button type="button" onClick={() => controller.current?.abort()}>Stop</button>}
            <button type="button" class="button-quiet" onClick={addColumn} disabled={columns.length >= MAX_COLUMNS}>
              Compare with…
            </button>
          </div>
        </form>
        <div class={`pg-columns pg-columns-${columns.length}`}>
          {columns.map((column, i) => (
            <OutputColumn key={column.key} column={column} index={i} run={runs[column.key] ?? null}
              revisions={revisions}
              variantSlug={props.variantSlug} draftLabel={draftLabel}
              modelPlaceholder={columnModel(column, draftParameters, detailed)}
              onChange={(next) => setColumns(columns.map((c) => (c.key === next.key ? next : c)))}
              onRemove={i === 0 ? undefined : () => setColumns(columns.filter((c) => c.key !== column.key))} />
          ))}
        </div>
        <RowFinder revision={revision} changed={changed} onUse={fill} />
      </div>
    </div>
  );
}

/** A column's run once the invocation answered; an answer that failed keeps the text streamed before. */
function invokeFinished(result: InvokeResult, run: Run | undefined): Run {
  const text = run?.text ?? "";
  if (result.ok) return { state: "finished", text, result };
  return { state: "finished", text, result: { ...result, outputs: result.outputs ?? (text || null) } };
}
