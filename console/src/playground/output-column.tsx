import { useState } from "preact/hooks";
import { ErrorBanner } from "../components/error-banner.tsx";
import { IdChip } from "../components/id-chip.tsx";
import { Link } from "../components/link.tsx";
import type { InvokeResult } from "../invoke.ts";
import type { Revision } from "../revisions.ts";
import { TracePanel } from "../pages/trace-panel.tsx";
import type { Column } from "./column.ts";
import { formatCost, type RunMetrics } from "./run-metrics.ts";

/** A column's run: the text streamed so far, then the whole answer and, once its trace is read, its metrics. */
export type Run =
  | { state: "running"; text: string }
  | { state: "finished"; text: string; result: InvokeResult; metrics?: RunMetrics | null };

const shown = (run: Run) => {
  if (run.state === "running" || !run.result.ok) return run.text;
  const outputs = run.result.outputs;
  return typeof outputs === "string" ? outputs : JSON.stringify(outputs, null, 2);
};

/** One column: what it runs (the draft, or a revision on a model of choice), its output, latency, tokens and cost. */
export function OutputColumn(props: {
  column: Column; index: number; run: Run | null; revisions: Revision[]; variantSlug: (id: string) => string;
  modelPlaceholder: string; draftLabel: string; onChange: (column: Column) => void; onRemove?: () => void;
}) {
  const { column, index, run } = props;
  const [showTrace, setShowTrace] = useState(false);
  const n = index + 1;
  const result = run?.state === "finished" ? run.result : null;
  const metrics = run?.state === "finished" ? run.metrics : null;
  return (
    <section class="pg-column" aria-labelledby={`pg-column-${column.key}`}>
      <header class="pg-column-head">
        <h3 id={`pg-column-${column.key}`}>{index === 0 ? "Output" : `Column ${n}`}</h3>
        {props.onRemove && (
          <button type="button" class="button-small button-quiet" onClick={props.onRemove}
            aria-label={`Remove column ${n}`}>
            Remove
          </button>
        )}
      </header>
      {index === 0 ? (
        <p class="muted pg-column-source">{props.draftLabel}</p>
      ) : (
        <div class="pg-column-config">
          <label class="visually-hidden" for={`pg-source-${column.key}`}>Column {n} runs</label>
          <select id={`pg-source-${column.key}`} value={column.source}
            onChange={(e) => props.onChange({ ...column, source: (e.target as HTMLSelectElement).value })}>
            <option value="draft">Your draft</option>
            {props.revisions.map((r) => <option value={r.id}>{props.variantSlug(r.variant_id)} v{r.version}</option>)}
          </select>
          <label class="visually-hidden" for={`pg-model-${column.key}`}>Model of column {n}</label>
          <input id={`pg-model-${column.key}`} value={column.model} placeholder={props.modelPlaceholder || "model"}
            onInput={(e) => props.onChange({ ...column, model: (e.target as HTMLInputElement).value })} />
        </div>
      )}
      {result && !result.ok && <ErrorBanner message={result.error} />}
      <pre class="pg-output-text" aria-live="polite" aria-busy={run?.state === "running" ? "true" : "false"}
        data-state={run?.state ?? "idle"}>
        {run
          ? shown(run) || (run.state === "running" ? "…" : "")
          : <span class="muted">Run to see the output here.</span>}
      </pre>
      {metrics && (
        <p class="pg-metrics" aria-label={`Metrics of column ${n}`}>
          <span>{Math.round(metrics.latencyMs)} ms</span>
          {metrics.tokens !== null && <span>{metrics.tokens} tokens</span>}
          {metrics.cost !== null && <span>{formatCost(metrics.cost)}</span>}
        </p>
      )}
      {result?.traceId && (
        <div class="pg-trace">
          <span class="muted">Trace</span> <IdChip id={result.traceId} label="trace id" />
          <button type="button" class="button-small" aria-expanded={showTrace} onClick={() => setShowTrace(!showTrace)}>
            {showTrace ? "Hide trace" : "Show trace"}
          </button>
          <Link href={`/traces/${result.traceId}`}>Open in Traces</Link>
        </div>
      )}
      {showTrace && result?.traceId && <TracePanel traceId={result.traceId} />}
    </section>
  );
}
