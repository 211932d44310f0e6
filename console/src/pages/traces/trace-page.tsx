/**
 * `/traces/{trace_id}?span={span_id}`: one trace as Langfuse and Agenta show it, its spans as a tree beside a
 * timing waterfall (each bar placed by the span's start and end within the trace), and the selected span's
 * inputs, outputs, parameters, tokens, cost, errors and remaining attributes.
 */
import { useApi } from "../../api.ts";
import { EmptyState } from "../../components/empty-state.tsx";
import { ErrorBanner } from "../../components/error-banner.tsx";
import { IdChip } from "../../components/id-chip.tsx";
import { Link } from "../../components/link.tsx";
import { Loading } from "../../components/loading.tsx";
import { Time } from "../../components/time.tsx";
import { hrefOf, setQuery, type ViewProps } from "../../router.ts";
import { costText, dataOf, durationText, fetchTrace, isError, metricOf, spanMs, type Span } from "../../traces.ts";
import { durationOf, Tokens, TraceStatus, TraceTarget } from "./trace-cells.tsx";

type Row = { span: Span; depth: number };

const json = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value, null, 2));

/** A span's row as a screen reader says it: `chat gpt-4o-mini, chat, 850 ms, error`. */
const spanLabel = (span: Span) =>
  [span.span_name, span.span_type, durationText(spanMs(span)), ...(isError(span) ? ["error"] : [])].join(", ");

/** The spans as rows of a tree, each with its bar on the trace's time line. */
function Waterfall(props: { rows: Row[]; selected: string }) {
  const starts = props.rows.map((r) => Date.parse(r.span.start_time));
  const ends = props.rows.map((r) => Date.parse(r.span.end_time));
  const t0 = Math.min(...starts);
  const total = Math.max(Math.max(...ends) - t0, 1);
  const pct = (ms: number) => `${Math.min(Math.max((ms / total) * 100, 0), 100).toFixed(2)}%`;
  return (
    <ol class="ob-waterfall" aria-label="Spans">
      <li class="ob-scale" aria-hidden="true">
        <span>Span</span>
        <span class="ob-ticks">
          <span>0</span><span>{durationText(total / 2)}</span><span>{durationText(total)}</span>
        </span>
        <span />
      </li>
      {props.rows.map(({ span, depth }, i) => {
        const start = starts[i]! - t0;
        const width = Math.max(ends[i]! - starts[i]!, 0);
        const current = span.span_id === props.selected;
        return (
          <li>
            <button
              type="button" class={`ob-span${current ? " ob-span-current" : ""}`} aria-pressed={current}
              onClick={() => setQuery({ span: span.span_id })}
              aria-label={spanLabel(span)}
            >
              <span class="ob-span-name" style={{ paddingLeft: `${depth * 1.1}rem` }}>
                {depth > 0 && <span class="ob-branch" aria-hidden="true">└</span>}
                <span class="ob-span-title">{span.span_name}</span>
                <span class="badge ob-type">{span.span_type}</span>
              </span>
              <span class="ob-track">
                <span
                  class={`ob-bar${isError(span) ? " ob-bar-error" : ""}`} data-testid="waterfall-bar"
                  style={{ left: pct(start), width: `max(2px, ${pct(width)})` }}
                />
              </span>
              <span class="ob-num">{durationText(spanMs(span))}</span>
            </button>
          </li>
        );
      })}
    </ol>
  );
}

/** What is left of the attributes once data and metrics are shown on their own. */
function otherAttributes(span: Span): Record<string, unknown> {
  const { ag, ...rest } = span.attributes ?? {};
  const { data, metrics, ...agRest } = (ag ?? {}) as Record<string, unknown>;
  const internals = (data as Record<string, unknown> | undefined)?.internals;
  return {
    ...(Object.keys(agRest).length ? { ag: agRest } : {}),
    ...(internals !== undefined ? { internals } : {}),
    ...rest,
  };
}

/** An `exception` event as its type, message and stack trace. */
const exceptionText = (a: Record<string, any>) =>
  [[a["exception.type"], a["exception.message"]].filter(Boolean).join(": "), a["exception.stacktrace"]]
    .filter(Boolean).join("\n");

function Block(props: { title: string; value: unknown }) {
  if (props.value === undefined || props.value === null) return null;
  if (typeof props.value === "object" && Object.keys(props.value as object).length === 0) return null;
  return (
    <section class="ob-block" aria-label={props.title}>
      <h3>{props.title}</h3>
      <pre class="pg-json">{json(props.value)}</pre>
    </section>
  );
}

function SpanDetails(props: { span: Span }) {
  const s = props.span;
  const tokens = metricOf(s, "tokens");
  const exceptions = (s.events ?? []).filter((e) => e.name === "exception");
  const errors = isError(s) || exceptions.length > 0;
  const references = s.references ?? [];
  return (
    <section class="ob-details" aria-label="Span details">
      <h2>{s.span_name} <TraceStatus span={s} /></h2>
      <dl class="facts">
        <dt>Type</dt><dd>{s.span_type} · {s.span_kind.replace("SPAN_KIND_", "").toLowerCase()}</dd>
        <dt>Started</dt><dd><Time value={s.start_time} /></dd>
        <dt>Duration</dt><dd>{durationText(spanMs(s))}</dd>
        <dt>Tokens</dt>
        <dd>
          <Tokens tokens={tokens} />
          {tokens?.total ? ` (prompt ${tokens.prompt ?? 0}, completion ${tokens.completion ?? 0})` : ""}
        </dd>
        <dt>Cost</dt><dd>{costText(metricOf(s, "costs")?.total)}</dd>
        <dt>Span</dt><dd><IdChip id={s.span_id} label="span id" /></dd>
        {references.length > 0 && (
          <>
            <dt>References</dt>
            <dd class="ob-refs">
              {references.map((r) => (
                <span>
                  <span class="muted">{r.attributes?.key}</span>{" "}
                  <code>{r.slug ?? r.id}{r.version ? ` v${r.version}` : ""}</code>
                </span>
              ))}
            </dd>
          </>
        )}
      </dl>
      {errors && (
        <div class="banner banner-error ob-error" role="alert">
          <div>
            <strong>Error</strong>{s.status_message ? `: ${s.status_message}` : ""}
            {exceptions.map((e) => <pre class="ob-exception">{exceptionText(e.attributes ?? {})}</pre>)}
          </div>
        </div>
      )}
      <Block title="Inputs" value={dataOf(s, "inputs")} />
      <Block title="Outputs" value={dataOf(s, "outputs")} />
      <Block title="Parameters" value={dataOf(s, "parameters")} />
      <details class="ob-more">
        <summary>Attributes</summary>
        <pre class="pg-json">{json(otherAttributes(s))}</pre>
      </details>
    </section>
  );
}

export function TracePage({ params, query }: ViewProps) {
  const loaded = useApi((signal) => fetchTrace(params.id!, signal), [params.id]);
  const crumbs = <p class="crumbs"><Link href="/traces">Traces</Link> / <code>…{params.id!.slice(-12)}</code></p>;
  if (loaded.error) return <>{crumbs}<ErrorBanner message={loaded.error} onRetry={loaded.reload} /></>;
  if (!loaded.data) return <>{crumbs}<Loading label="Loading the trace…" /></>;
  const rows = loaded.data;
  if (rows.length === 0) {
    return (
      <>
        {crumbs}
        <EmptyState title="No such trace">
          <p>
            This project holds no trace <code>{params.id}</code>. Its spans may still be on their way: retry in a
            moment.
          </p>
        </EmptyState>
      </>
    );
  }
  const root = rows[0]!.span;
  const selected = rows.find((r) => r.span.span_id === query.get("span"))?.span ?? root;
  return (
    <div class="ob-trace">
      {crumbs}
      <h1>{root.span_name} <TraceStatus span={root} /></h1>
      <dl class="facts ob-summary">
        <dt>Trace</dt><dd><IdChip id={root.trace_id} label="trace id" /></dd>
        <dt>Started</dt><dd><Time value={root.start_time} /></dd>
        <dt>Duration</dt><dd>{durationOf(root)}</dd>
        <dt>Tokens</dt><dd><Tokens tokens={metricOf(root, "tokens")} /></dd>
        <dt>Cost</dt><dd>{costText(metricOf(root, "costs")?.total)}</dd>
        <dt>Application</dt><dd><TraceTarget span={root} /></dd>
        {root.session_id && (
          <>
            <dt>Session</dt>
            <dd><Link href={hrefOf("/traces", { session: root.session_id })}>{root.session_id}</Link></dd>
          </>
        )}
        {root.user_id && (
          <><dt>User</dt><dd><Link href={hrefOf("/traces", { user: root.user_id })}>{root.user_id}</Link></dd></>
        )}
      </dl>
      <div class="ob-layout">
        <Waterfall rows={rows} selected={selected.span_id} />
        <SpanDetails span={selected} />
      </div>
    </div>
  );
}
