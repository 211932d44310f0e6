import { api, useApi } from "../api.ts";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Loading } from "../components/loading.tsx";
import { Time } from "../components/time.tsx";

const json = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value, null, 2));

type SpanNode = { span_name: string; span_type?: string; status_code?: string; attributes?: any; spans?: SpanTree };
type SpanTree = Record<string, SpanNode | SpanNode[]>;

/** The spans of a tree (root spans by name, children under `spans`), parents before their children. */
const flatten = (tree: SpanTree | undefined, depth = 0): { span: SpanNode; depth: number }[] =>
  Object.values(tree ?? {}).flat().flatMap((span) => [{ span, depth }, ...flatten(span.spans, depth + 1)]);

function SpanList(props: { tree: SpanTree }) {
  return (
    <ol class="pg-spans">
      {flatten(props.tree).map(({ span, depth }) => (
        <li style={{ paddingLeft: `${depth}em` }}>
          {span.span_name} · {span.span_type}
          {span.status_code === "STATUS_CODE_ERROR" ? " · error" : ""}
          {typeof span.attributes?.ag?.metrics?.duration?.cumulative === "number"
            ? ` · ${Math.round(span.attributes.ag.metrics.duration.cumulative)} ms` : ""}
        </li>
      ))}
    </ol>
  );
}

/** One trace (`GET /traces/{trace_id}`): status, latency, usage, inputs, outputs and its span tree. */
export function TracePanel(props: { traceId: string }) {
  const loaded = useApi((signal) => api("GET", `/traces/${encodeURIComponent(props.traceId)}`, undefined, { signal }), [props.traceId]);
  if (loaded.error) return <ErrorBanner message={loaded.error} onRetry={loaded.reload} />;
  if (!loaded.data) return <Loading label="Loading the trace…" />;
  const trace = loaded.data.trace;
  if (!trace) return <ErrorBanner message="This project holds no such trace." onRetry={loaded.reload} />;
  const spans = flatten(trace.spans);
  return (
    <section class="pg-trace-panel" aria-label="Trace">
      <dl class="facts">
        <dt>Status</dt><dd>{trace.status?.code}{trace.status?.message ? ` · ${trace.status.message}` : ""}</dd>
        <dt>Latency</dt><dd>{Math.round(trace.latency_ms)} ms</dd>
        {trace.usage && <><dt>Usage</dt><dd><code>{JSON.stringify(trace.usage)}</code></dd></>}
        <dt>Recorded</dt><dd><Time value={trace.created_at} /></dd>
        <dt>Spans</dt><dd>{spans.length}</dd>
      </dl>
      <h3>Inputs</h3>
      <pre class="pg-json">{json(trace.inputs)}</pre>
      <h3>Outputs</h3>
      <pre class="pg-json">{json(trace.outputs)}</pre>
      {spans.length > 0 && (
        <details>
          <summary>Spans</summary>
          <SpanList tree={trace.spans} />
          <pre class="pg-json">{json(trace.spans)}</pre>
        </details>
      )}
    </section>
  );
}
