import { api, useApi } from "../api.ts";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Loading } from "../components/loading.tsx";
import { Time } from "../components/time.tsx";

const json = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value, null, 2));

/** The record of one invocation (`GET /traces/{trace_id}`): status, latency, usage, inputs, outputs and spans. */
export function TracePanel(props: { traceId: string }) {
  const loaded = useApi((signal) => api("GET", `/traces/${encodeURIComponent(props.traceId)}`, undefined, { signal }), [props.traceId]);
  if (loaded.error) return <ErrorBanner message={loaded.error} onRetry={loaded.reload} />;
  if (!loaded.data) return <Loading label="Loading the trace…" />;
  const trace = loaded.data.trace;
  return (
    <section class="pg-trace-panel" aria-label="Trace">
      <dl class="facts">
        <dt>Status</dt><dd>{trace.status?.code}{trace.status?.message ? ` · ${trace.status.message}` : ""}</dd>
        <dt>Latency</dt><dd>{Math.round(trace.latency_ms)} ms</dd>
        {trace.usage && <><dt>Usage</dt><dd><code>{JSON.stringify(trace.usage)}</code></dd></>}
        <dt>Recorded</dt><dd><Time value={trace.created_at} /></dd>
        <dt>Spans</dt><dd>{trace.spans?.length ?? 0}</dd>
      </dl>
      <h3>Inputs</h3>
      <pre class="pg-json">{json(trace.inputs)}</pre>
      <h3>Outputs</h3>
      <pre class="pg-json">{json(trace.outputs)}</pre>
      {trace.spans?.length > 0 && (
        <details>
          <summary>Spans</summary>
          <pre class="pg-json">{json(trace.spans)}</pre>
        </details>
      )}
    </section>
  );
}
