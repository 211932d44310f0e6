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

/** A value on one line, cut at `max` characters: strings as they are, objects as `key: value · …`, the rest as JSON. */
export function preview(value: unknown, max: number): string {
  if (value === undefined || value === null) return "";
  let text = typeof value === "string" ? value : JSON.stringify(value);
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>);
    const one = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));
    // One field (a question, a prompt) reads best as its value alone.
    if (entries.length === 1) text = one(entries[0]![1]);
    else if (entries.length > 1) text = entries.map(([k, v]) => `${k}: ${one(v)}`).join(" · ");
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export const durationOf = (span: Span) => durationText(metricOf(span, "duration") ?? spanMs(span));

/** Total tokens, with prompt and completion in the tooltip. */
export function Tokens(props: { tokens: any }) {
  const t = props.tokens;
  if (!t || typeof t.total !== "number" || t.total === 0) return <span class="muted">—</span>;
  const title = `prompt ${t.prompt ?? 0} · completion ${t.completion ?? 0}`;
  return <span title={title}>{t.total.toLocaleString("en-US")}</span>;
}

let format: Intl.DateTimeFormat | undefined;

/** When a trace started, to the second (traces come close together), the exact value in the tooltip. */
export function TraceTime(props: { value: string }) {
  format ??= new Intl.DateTimeFormat(undefined, {
    month: "short", day: "numeric", hour: "numeric", minute: "2-digit", second: "2-digit",
  });
  return <time dateTime={props.value} title={props.value}>{format.format(new Date(props.value))}</time>;
}
