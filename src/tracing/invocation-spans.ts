/*
 * A hosted invocation's trace in the reference's span model, as its SDK would send it for a workflow: a root
 * `workflow` span holding the invocation's inputs, parameters, outputs, references, status and duration, and
 * under it the spans the runtime recorded (the model call with its prompt and tokens, a hook's or code's run).
 * A runtime span's attributes land where the reference keeps them: `inputs`, `outputs`, `parameters` (and a
 * model call's `settings`, `model`, `provider`) in `ag.data`, `prompt` as `ag.data.inputs.prompt`, `usage` as
 * incremental tokens; whatever else it recorded in `ag.data.internals`. Migration 028 maps stored rows the same way.
 * The spans are built as stored, as the OTLP normaliser and the batch roll-up (otlp/normalize.ts, rollup.ts)
 * would store them sent that way (test/tracing/invocation-spans.test.ts holds them to it), without that round trip:
 * every hosted invocation and evaluation cell writes one.
 */

import { MAX_JSON_DEPTH, tooDeep } from "../json-depth.ts";
import type { Span as RuntimeSpan } from "../runtime/trace.ts";
import type { InvocationRecord } from "../traces/traces.ts";
import { isObject, REFERENCE_KEYS } from "./ag-attributes.ts";
import { costOf } from "./model-prices.ts";
import { spanIdToUuid, traceIdToUuid, type Span, type SpanReference } from "./span.ts";

type Json = Record<string, unknown>;
type Vector = { prompt: number; completion: number; total: number };

/** Runtime span types as the reference's span types. */
const SPAN_TYPES: Record<string, string> = {
  workflow: "workflow", task: "task", chat: "chat", hook: "tool", code: "task",
};
const DATA_KEYS = new Set(["inputs", "outputs", "parameters", "settings", "model", "provider", "prompt", "usage"]);
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const URL_SAFE_SLUG = /^[a-zA-Z0-9_-][a-zA-Z0-9_.-]*$/;

/** `{prompt_tokens, completion_tokens, total_tokens}` as the reference's token vector, or null. */
function tokensOf(usage: unknown): Vector | null {
  if (!isObject(usage)) return null;
  const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);
  const prompt = n(usage.prompt_tokens);
  const completion = n(usage.completion_tokens);
  const total = n(usage.total_tokens) || prompt + completion;
  return total === 0 && prompt === 0 && completion === 0 ? null : { prompt, completion, total };
}

const add = (a: Vector | null, b: Vector | null): Vector | null =>
  (a && b ? { prompt: a.prompt + b.prompt, completion: a.completion + b.completion, total: a.total + b.total }
    : a ?? b);
/** A sum as the roll-up keeps it: nothing when it is all zero. */
const nonZero = (v: Vector | null) => (v && (v.prompt !== 0 || v.completion !== 0 || v.total !== 0) ? v : null);

/**
 * Microseconds since the epoch as ISO 8601 with microseconds (what timestamptz keeps); `iso`, the runtime's
 * millisecond time it was read from if any, gives it without formatting a date again.
 */
function isoFromMicros(us: number, iso?: string | null): string {
  const rest = ((us % 1000) + 1000) % 1000;
  if (rest === 0 && iso?.length === 24 && iso[10] === "T" && iso.endsWith("Z")) return `${iso.slice(0, -1)}000Z`;
  return `${new Date((us - rest) / 1000).toISOString().slice(0, -1)}${String(rest).padStart(3, "0")}Z`;
}

/**
 * `ag.data` of a runtime span's attributes, cleaned as stored: `parameters`, `inputs` and `internals` must be
 * objects (a JSON text of one is parsed); anything else goes to `ag.unsupported.data`.
 */
function dataOf(attributes: Json, unsupported: Json): Json {
  const data: Json = {};
  const parameters: Json = {};
  if (isObject(attributes.parameters)) Object.assign(parameters, attributes.parameters);
  if (isObject(attributes.settings)) Object.assign(parameters, attributes.settings);
  if (attributes.model !== undefined) parameters.model = attributes.model;
  if (attributes.provider !== undefined) parameters.provider = attributes.provider;
  if (Object.keys(parameters).length > 0) data.parameters = parameters;
  const inputs = attributes.inputs !== undefined ? attributes.inputs
    : attributes.prompt !== undefined ? { prompt: attributes.prompt } : undefined;
  if (inputs !== undefined && inputs !== null) {
    const parsed = isObject(inputs) ? inputs : typeof inputs === "string" ? parseJson(inputs) : undefined;
    if (isObject(parsed)) data.inputs = parsed;
    else unsupported.data = { inputs };
  }
  if (attributes.outputs !== undefined && attributes.outputs !== null) data.outputs = attributes.outputs;
  let internals: Json | null = null;
  for (const key in attributes) if (!DATA_KEYS.has(key)) (internals ??= {})[key] = attributes[key];
  if (internals) data.internals = internals;
  return data;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The record's references (`{application: {id, slug, version}, …}`) as `ag.references` and the span's column. */
function referencesOf(references: Json | null): { ag: Json; column: SpanReference[] } | null {
  let ag: Json | null = null;
  const column: SpanReference[] = [];
  for (const key in references) {
    const ref = references[key];
    if (!REFERENCE_KEYS.includes(key) || !isObject(ref)) continue;
    const id = typeof ref.id === "string" && UUID.test(ref.id) ? ref.id : null;
    const slug = ref.slug === undefined || ref.slug === null ? null : String(ref.slug);
    const version = ref.version === undefined || ref.version === null ? null : String(ref.version);
    if (id === null && slug === null && version === null) continue;
    const entry: Json = {};
    const stored: SpanReference = { attributes: { key } };
    if (id !== null) {
      entry.id = id;
      stored.id = traceIdToUuid(id);
    }
    if (slug !== null && URL_SAFE_SLUG.test(slug)) entry.slug = stored.slug = slug;
    if (version !== null) {
      entry.version = version;
      if (version) stored.version = version;
    }
    (ag ??= {})[key] = entry;
    column.push(stored);
  }
  return ag ? { ag, column } : null;
}

interface Draft {
  span: Span;
  parent: string | null;
  /** Tokens and costs of the span itself (incremental), then with its descendants' (cumulative). */
  tokens: Vector | null;
  costs: Vector | null;
}

/** A span as stored, but for its metrics' tokens and costs, which the trace's tree sums (`invocationSpans`). */
function draft(
  traceId: string, span: { id: string; parent: string | null; name: string; type: string; kind: string },
  times: { startUs: number; endUs: number; startIso?: string; endIso?: string | null },
  status: RuntimeSpan["status"], data: Json, tokens: Vector | null, extra: Json, unsupported: Json,
): Draft {
  const duration: Json = {};
  const ms = Math.round(times.endUs - times.startUs) / 1000;
  if (ms > 0) duration.cumulative = ms;
  const ag: Json = {
    type: { span: span.type, trace: "invocation" }, data,
    metrics: { duration, errors: {}, tokens: tokens ? { incremental: tokens } : {}, costs: {} }, ...extra,
  };
  if (Object.keys(unsupported).length > 0) ag.unsupported = unsupported;
  const attributes = { ag };
  // Storing walks the value recursively: a span nested past the limit (by a JSON value) is refused.
  if (tooDeep(attributes)) throw new Error(`attributes are nested deeper than ${MAX_JSON_DEPTH} levels`);
  let costs: Vector | null = null;
  const model = (data.parameters as Json | undefined)?.model;
  if (span.type === "chat" && typeof model === "string") {
    const cost = costOf(model, tokens?.prompt ?? 0, tokens?.completion ?? 0);
    if (cost) costs = { prompt: cost[0], completion: cost[1], total: cost[0] + cost[1] };
  }
  return {
    span: {
      trace_id: traceId, span_id: spanIdToUuid(span.id), parent_id: span.parent ? spanIdToUuid(span.parent) : null,
      trace_type: "invocation", span_type: span.type, span_kind: span.kind, span_name: span.name,
      start_time: isoFromMicros(times.startUs, times.startIso),
      end_time: isoFromMicros(times.endUs, times.endIso),
      status_code: status.code === "error" ? "STATUS_CODE_ERROR" : "STATUS_CODE_OK",
      status_message: status.message ?? null, session_id: null, user_id: null, agent_id: null, attributes,
      references: null, links: null, events: null,
    },
    parent: span.parent, tokens, costs,
  };
}

/** The invocation's spans as stored; the root span always first. */
export function invocationSpans(record: InvocationRecord): Span[] {
  const traceId = traceIdToUuid(record.traceId);
  const recorded = record.spans.filter((span) => span.trace_id === record.traceId);
  const root = recorded.find((span) => span.span_id === record.spanId && span.parent_id === null);
  const children = recorded.filter((span) => span !== root);
  // The root lasts the invocation's latency: from its recorded start, or up to now.
  const latencyNs = Math.round(record.latencyMs * 1e6);
  const rootEndUs = root ? null : Date.now() * 1000;
  const startUs = root ? Date.parse(root.start_time) * 1000 : rootEndUs! + Math.floor(-latencyNs / 1000);
  const endUs = root ? startUs + Math.floor(latencyNs / 1000) : rootEndUs!;
  const hasUsage = children.some((span) => tokensOf(span.attributes.usage) !== null);
  const unsupported: Json = {};
  const data = dataOf({
    ...root?.attributes, inputs: record.inputs, outputs: record.outputs, usage: record.usage,
  }, unsupported);
  const references = referencesOf(record.references);
  const extra: Json = {};
  if (references) extra.references = references.ag;
  if (record.sessionId) extra.session = { id: String(record.sessionId) };
  extra.meta = { status: record.status };
  const failed = (record.status?.code ?? 500) >= 400;
  const name = root?.name ?? "invocation";
  const drafts = [draft(
    traceId, { id: record.spanId, parent: null, name, type: "workflow", kind: "SPAN_KIND_SERVER" },
    { startUs, endUs, startIso: root?.start_time },
    failed ? { code: "error", message: record.status?.message } : { code: "ok" }, data,
    hasUsage ? null : tokensOf(record.usage), extra, unsupported,
  )];
  const rootSpan = drafts[0]!.span;
  // The invocation's latency as measured, not as its microsecond timestamps round it: evaluation metrics kept while
  // a run goes must equal those read back from its traces.
  if (record.latencyMs > 0) rootSpan.attributes.ag.metrics.duration.cumulative = record.latencyMs;
  rootSpan.references = references?.column ?? null;
  if (record.sessionId) rootSpan.session_id = String(record.sessionId);
  for (const span of children) drafts.push(childDraft(traceId, span));
  cumulate(drafts);
  return drafts.map((d) => d.span);
}

function childDraft(traceId: string, span: RuntimeSpan): Draft {
  const startMs = Date.parse(span.start_time);
  const startUs = startMs * 1000;
  let endUs = span.end_time ? Date.parse(span.end_time) * 1000
    : startUs + Math.floor(Math.round((span.duration_ms ?? 0) * 1e6) / 1000);
  let endIso = span.end_time;
  if (endUs < startUs) [endUs, endIso] = [startUs, span.start_time];
  const type = SPAN_TYPES[span.type] ?? "task";
  const kind = span.type === "chat" ? "SPAN_KIND_CLIENT" : "SPAN_KIND_INTERNAL";
  const unsupported: Json = {};
  const data = dataOf(span.attributes, unsupported);
  return draft(
    traceId, { id: span.span_id, parent: span.parent_id, name: span.name, type, kind },
    { startUs, endUs, startIso: span.start_time, endIso },
    span.status, data, tokensOf(span.attributes.usage), {}, unsupported,
  );
}

/**
 * Cumulative tokens and costs: a span's own plus its children's cumulative. The runtime lists a trace's spans in
 * the order they started, so children follow their parent: from the last up, each span's children are summed
 * (in their order, as the roll-up adds them) before it.
 */
function cumulate(drafts: Draft[]): void {
  const index = new Map(drafts.map((d, i) => [d.span.span_id, i]));
  const kids: number[][] = drafts.map(() => []);
  drafts.forEach((d, i) => {
    const parent = d.span.parent_id === null ? undefined : index.get(d.span.parent_id);
    if (parent !== undefined && parent !== i) kids[parent]!.push(i);
  });
  for (let i = drafts.length - 1; i >= 0; i--) {
    const d = drafts[i]!;
    const metrics = d.span.attributes.ag.metrics;
    let tokens = d.tokens;
    let costs = d.costs;
    for (const k of kids[i]!) {
      tokens = add(tokens, drafts[k]!.tokens);
      costs = add(costs, drafts[k]!.costs);
    }
    if (d.costs) metrics.costs.incremental = d.costs;
    d.tokens = nonZero(tokens && { ...tokens });
    d.costs = nonZero(costs && { ...costs });
    if (d.tokens) metrics.tokens.cumulative = d.tokens;
    if (d.costs) metrics.costs.cumulative = d.costs;
  }
}
