/**
 * Traces through the tracing API: root spans listed newest first with the reference's filtering and windowing
 * (`POST /tracing/spans/query`), one trace's spans (`GET /tracing/traces/{id}`), and what the pages read off
 * a span (`ag.data`, `ag.metrics`, references).
 */
import { api } from "./api.ts";
import type { Page } from "./paged-list.ts";

type Json = Record<string, any>;

export interface SpanReference {
  id?: string;
  slug?: string;
  version?: string;
  attributes?: { key?: string };
}

export interface Span {
  trace_id: string;
  span_id: string;
  parent_id?: string;
  span_name: string;
  span_type: string;
  span_kind: string;
  start_time: string;
  end_time: string;
  status_code: string;
  status_message?: string;
  session_id?: string;
  user_id?: string;
  attributes: Json;
  references?: SpanReference[];
  events?: { name: string; timestamp?: string; attributes?: Json }[];
  spans?: Record<string, Span | Span[]>;
}

/** What the list is filtered by, as the URL's query holds it (so that a view can be linked). */
export interface TraceFilters {
  /** An application's slug. */
  app: string;
  /** An environment's slug. */
  env: string;
  status: "" | "ok" | "error";
  /** How far back: one of RANGES' keys, or "" for any time. */
  range: string;
  session: string;
  user: string;
  /** Words searched in inputs, outputs and every other attribute (the API's full-text `content`). */
  q: string;
}

export const RANGES: Record<string, { title: string; ms: number }> = {
  "1h": { title: "Last hour", ms: 3_600_000 },
  "24h": { title: "Last 24 hours", ms: 86_400_000 },
  "7d": { title: "Last 7 days", ms: 7 * 86_400_000 },
  "30d": { title: "Last 30 days", ms: 30 * 86_400_000 },
};

export function filtersOf(query: URLSearchParams): TraceFilters {
  const status = query.get("status");
  const range = query.get("range") ?? "";
  return {
    app: query.get("app") ?? "",
    env: query.get("env") ?? "",
    status: status === "ok" || status === "error" ? status : "",
    range: range in RANGES ? range : "",
    session: query.get("session") ?? "",
    user: query.get("user") ?? "",
    q: query.get("q") ?? "",
  };
}

const reference = (key: string, slug: string) =>
  ({ field: "attributes", key: `ag.references.${key}.slug`, operator: "is", value: slug });

/**
 * The filtering of root spans that match `f`. A hosted run of a revision names its application as a `workflow`
 * (applications are workflows), one run through an environment or an SDK as an `application`: either matches.
 */
export function filteringOf(f: TraceFilters): Json {
  const conditions: Json[] = [
    { field: "parent_id", operator: "is", value: null },
    { field: "trace_type", operator: "is_not", value: "annotation" },
  ];
  if (f.app) {
    conditions.push({ operator: "or", conditions: [reference("application", f.app), reference("workflow", f.app)] });
  }
  if (f.env) conditions.push(reference("environment", f.env));
  if (f.status) {
    const operator = f.status === "error" ? "is" : "is_not";
    conditions.push({ field: "status_code", operator, value: "STATUS_CODE_ERROR" });
  }
  if (f.session) conditions.push({ field: "session_id", operator: "is", value: f.session });
  if (f.user) conditions.push({ field: "user_id", operator: "is", value: f.user });
  if (f.q.trim()) conditions.push({ field: "content", operator: "contains", value: f.q.trim() });
  return { operator: "and", conditions };
}

/**
 * A page of root spans, newest first. `from` is the last page's windowing (as JSON) or null for the first; the
 * time range's lower bound is fixed when the first page is read, so that later pages continue the same window.
 */
export async function queryTraces(
  f: TraceFilters, from: string | null, limit: number, signal?: AbortSignal,
): Promise<Page<Span>> {
  const windowing = from
    ? JSON.parse(from)
    : { limit, ...(f.range ? { oldest: new Date(Date.now() - RANGES[f.range]!.ms).toISOString() } : {}) };
  const answer = await api<{ spans?: Span[]; windowing?: Json }>("POST", "/tracing/spans/query", {
    focus: "span", filtering: filteringOf(f), windowing,
  }, { signal });
  return { items: answer.spans ?? [], next: answer.windowing ? JSON.stringify(answer.windowing) : null };
}

/** A trace's spans, parents before children and siblings by start time, each with its depth; [] when unknown. */
export async function fetchTrace(traceId: string, signal?: AbortSignal): Promise<{ span: Span; depth: number }[]> {
  const answer = await api<{ traces?: Record<string, { spans: Record<string, Span | Span[]> }> }>(
    "GET", `/tracing/traces/${encodeURIComponent(traceId)}`, undefined, { signal },
  );
  const tree = Object.values(answer.traces ?? {})[0]?.spans;
  return flatten(tree, 0);
}

const byStart = (a: Span, b: Span) => a.start_time.localeCompare(b.start_time);

function flatten(tree: Record<string, Span | Span[]> | undefined, depth: number): { span: Span; depth: number }[] {
  return Object.values(tree ?? {}).flat().sort(byStart)
    .flatMap((span) => [{ span, depth }, ...flatten(span.spans, depth + 1)]);
}

/** The span's `ag.data` part (`inputs`, `outputs`, `parameters`, `internals`). */
export const dataOf = (span: Span, part: string): unknown => span.attributes?.ag?.data?.[part];

/** A metric of the span and its descendants (`cumulative`), or of the span alone. */
export function metricOf(span: Span, name: "duration" | "tokens" | "costs" | "errors", own = false): any {
  const metric = span.attributes?.ag?.metrics?.[name];
  return own ? metric?.incremental : metric?.cumulative ?? metric?.incremental;
}

/** Milliseconds from start to end. */
export const spanMs = (span: Span): number => Date.parse(span.end_time) - Date.parse(span.start_time);

/** The span's reference under `key` (`application`, `environment` …). */
export const referenceOf = (span: Span, key: string): SpanReference | undefined =>
  span.references?.find((r) => r.attributes?.key === key);

export const isError = (span: Span): boolean => span.status_code === "STATUS_CODE_ERROR";

/** `1.2 s`, `340 ms`. */
export function durationText(ms: number | undefined): string {
  if (typeof ms !== "number" || !Number.isFinite(ms)) return "—";
  return ms >= 1000 ? `${(ms / 1000).toFixed(ms >= 10_000 ? 1 : 2)} s` : `${Math.round(ms)} ms`;
}

/** `$0.00042`: a cost with enough digits to be read. */
export function costText(cost: unknown): string {
  if (typeof cost !== "number" || cost === 0) return "—";
  return `$${cost >= 0.01 ? cost.toFixed(4) : cost.toPrecision(2)}`;
}
