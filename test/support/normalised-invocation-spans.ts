/*
 * Invocation spans as the runtime's trace was once stored: sent as the reference's SDK would send them (dotted
 * `ag.*` attributes) through the OTLP normaliser and the batch roll-up. src/tracing/invocation-spans.ts builds the
 * same spans directly; its test holds it to these.
 */

import type { Span as RuntimeSpan } from "../../src/runtime/trace.ts";
import type { InvocationRecord } from "../../src/traces/traces.ts";
import { REFERENCE_KEYS } from "../../src/tracing/ag-attributes.ts";
import { normalizeSpan } from "../../src/tracing/otlp/normalize.ts";
import type { OtelSpan } from "../../src/tracing/otlp/otlp-spans.ts";
import { rollUp } from "../../src/tracing/rollup.ts";
import type { Span } from "../../src/tracing/span.ts";

type Json = Record<string, unknown>;

/** Runtime span types as the reference's span types. */
const SPAN_TYPES: Record<string, string> = { workflow: "workflow", task: "task", chat: "chat", hook: "tool", code: "task" };
const DATA_KEYS = new Set(["inputs", "outputs", "parameters", "settings", "model", "provider", "prompt", "usage"]);
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const nanos = (iso: string) => BigInt(Date.parse(iso)) * 1_000_000n;

/** `{prompt_tokens, completion_tokens, total_tokens}` as the reference's token vector, or null. */
function tokensOf(usage: unknown): Json | null {
  if (!isObject(usage)) return null;
  const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);
  const prompt = n(usage.prompt_tokens);
  const completion = n(usage.completion_tokens);
  const total = n(usage.total_tokens) || prompt + completion;
  return total === 0 && prompt === 0 && completion === 0 ? null : { prompt, completion, total };
}

/** A runtime span's attributes under the reference's `ag.*` keys (dotted, as OTLP carries them). */
function agAttributes(attributes: Json, withUsage: boolean): Json {
  const out: Json = {};
  const parameters: Json = {};
  if (isObject(attributes.parameters)) Object.assign(parameters, attributes.parameters);
  if (isObject(attributes.settings)) Object.assign(parameters, attributes.settings);
  for (const key of ["model", "provider"]) if (attributes[key] !== undefined) parameters[key] = attributes[key];
  if (Object.keys(parameters).length > 0) out["ag.data.parameters"] = parameters;
  if (attributes.inputs !== undefined) out["ag.data.inputs"] = attributes.inputs;
  else if (attributes.prompt !== undefined) out["ag.data.inputs"] = { prompt: attributes.prompt };
  if (attributes.outputs !== undefined) out["ag.data.outputs"] = attributes.outputs;
  const internals: Json = {};
  for (const [key, value] of Object.entries(attributes)) if (!DATA_KEYS.has(key)) internals[key] = value;
  if (Object.keys(internals).length > 0) out["ag.data.internals"] = internals;
  const tokens = withUsage ? tokensOf(attributes.usage) : null;
  for (const [name, value] of Object.entries(tokens ?? {})) out[`ag.metrics.unit.tokens.${name}`] = value;
  return out;
}

/** The record's references (`{application: {id, slug, version}, …}`) as `ag.refs.*` attributes. */
function referenceAttributes(references: Json | null): Json {
  const out: Json = {};
  for (const [key, ref] of Object.entries(references ?? {})) {
    if (!REFERENCE_KEYS.includes(key) || !isObject(ref)) continue;
    if (typeof ref.id === "string" && UUID.test(ref.id)) out[`ag.refs.${key}.id`] = ref.id;
    if (ref.slug !== undefined && ref.slug !== null) out[`ag.refs.${key}.slug`] = String(ref.slug);
    if (ref.version !== undefined && ref.version !== null) out[`ag.refs.${key}.version`] = String(ref.version);
  }
  return out;
}

function otelSpan(span: RuntimeSpan, attributes: Json, kind: string): OtelSpan {
  const startNs = nanos(span.start_time);
  const endNs = span.end_time ? nanos(span.end_time) : startNs + BigInt(Math.round((span.duration_ms ?? 0) * 1e6));
  return {
    traceId: span.trace_id, spanId: span.span_id, parentId: span.parent_id, name: span.name, kind, startNs,
    endNs: endNs < startNs ? startNs : endNs,
    statusCode: span.status.code === "error" ? "STATUS_CODE_ERROR" : "STATUS_CODE_OK",
    statusMessage: span.status.message ?? null,
    attributes: { ...attributes, "ag.type.node": SPAN_TYPES[span.type] ?? "task" }, events: [], links: null,
  };
}

/** The invocation's spans, normalised and rolled up as ingested spans are; the root span always first. */
export function normalisedInvocationSpans(record: InvocationRecord): Span[] {
  const recorded = record.spans.filter((span) => span.trace_id === record.traceId);
  const root = recorded.find((span) => span.span_id === record.spanId && span.parent_id === null);
  const children = recorded.filter((span) => span !== root);
  const endedAt = root?.end_time ?? new Date().toISOString();
  const startNs = root ? nanos(root.start_time) : nanos(endedAt) - BigInt(Math.round(record.latencyMs * 1e6));
  const rootSpan: RuntimeSpan = {
    trace_id: record.traceId, span_id: record.spanId, parent_id: null, name: root?.name ?? "invocation",
    type: "workflow", start_time: new Date(Number(startNs / 1_000_000n)).toISOString(), end_time: null,
    duration_ms: record.latencyMs,
    status: (record.status?.code ?? 500) >= 400 ? { code: "error", message: record.status?.message } : { code: "ok" },
    attributes: {},
  };
  const hasUsage = children.some((span) => tokensOf(span.attributes.usage) !== null);
  const rootAttributes = agAttributes({
    ...root?.attributes, inputs: record.inputs, outputs: record.outputs, usage: record.usage,
  }, !hasUsage);
  Object.assign(rootAttributes, referenceAttributes(record.references), { "ag.meta.status": record.status });
  if (record.sessionId) rootAttributes["ag.session.id"] = record.sessionId;
  const otel = [{ ...otelSpan(rootSpan, rootAttributes, "SPAN_KIND_SERVER"), startNs }];
  otel[0]!.endNs = startNs + BigInt(Math.round(record.latencyMs * 1e6));
  for (const span of children) {
    const kind = span.type === "chat" ? "SPAN_KIND_CLIENT" : "SPAN_KIND_INTERNAL";
    otel.push(otelSpan(span, agAttributes(span.attributes, true), kind));
  }
  const spans = otel.map(normalizeSpan);
  // The invocation's latency as measured, not as its microsecond timestamps round it: evaluation metrics kept while
  // a run goes must equal those read back from its traces.
  if (record.latencyMs > 0) spans[0]!.attributes.ag.metrics.duration.cumulative = record.latencyMs;
  return rollUp(spans);
}
