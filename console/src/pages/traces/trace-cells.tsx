/** The small parts a trace row and a span's details share: status badge, reference chips, a JSON preview. */
import { durationText, isError, metricOf, referenceOf, spanMs, type Span } from "../../traces.ts";

export function TraceStatus(props: { span: Span }) {
  const error = isError(props.span);
  return (
    <span class={`badge ob-status ${error ? "ob-status-error" : "ob-status-ok"}`} title={props.span.status_message}>
      {error ? "error" : "ok"}
    </span>
  );
}

/** The application (a hosted run of a revision names it as a workflow) and environment a span references. */
export function TraceTarget(props: { span: Span }) {
  const app = referenceOf(props.span, "application") ?? referenceOf(props.span, "workflow");
  const env = referenceOf(props.span, "environment");
  if (!app && !env) return <span class="muted">—</span>;
  return (
    <span class="ob-target">
      {app && <code>{app.slug ?? `…${app.id?.slice(-8)}`}</code>}
      {env && <span class="badge ob-env">{env.slug ?? `…${env.id?.slice(-8)}`}</span>}
    </span>
  );
}

/** A value on one line, cut at `max` characters: strings as they are, the rest as JSON. */
export function preview(value: unknown, max: number): string {
  if (value === undefined || value === null) return "";
  let text = typeof value === "string" ? value : JSON.stringify(value);
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length > 0) text = entries.map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`).join(" · ");
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export const durationOf = (span: Span) => durationText(metricOf(span, "duration") ?? spanMs(span));

/** Total tokens, with prompt and completion in the tooltip. */
export function Tokens(props: { tokens: any }) {
  const t = props.tokens;
  if (!t || typeof t.total !== "number" || t.total === 0) return <span class="muted">—</span>;
  return <span title={`prompt ${t.prompt ?? 0} · completion ${t.completion ?? 0}`}>{t.total.toLocaleString("en-US")}</span>;
}
