/*
 * An OTLP span in the reference's span model (its OTelFlatSpanBuilder, then `_parse_span_from_request`): the
 * `ag.*` namespaces decoded (`@ag.type=json:` values parsed), `ag.refs.*` as references, `ag.metrics.unit.*` and
 * `acc.*` as incremental and cumulative metrics, `ag.type.node` as the span type, dotted keys unflattened, the
 * duration and the exception events counted into the metrics. Other conventions' attributes (OpenLLMetry,
 * OpenInference, GenAI, Vercel AI SDK) are mapped onto `ag.*` first (adapters/).
 */

import { MAX_JSON_DEPTH, tooDeep } from "../../json-depth.ts";
import { cleanAgAttributes, isObject } from "../ag-attributes.ts";
import { isoFromNanos, spanIdToUuid, traceIdToUuid, type Span, type SpanReference } from "../span.ts";
import { unflatten } from "../unflatten.ts";
import { agAttributes } from "./adapters/conventions.ts";
import type { OtelSpan } from "./otlp-spans.ts";

/** The `ag.<namespace>.` prefixes whose values are decoded: each feeds the part of the span of its name. */
const NAMESPACES = new Set(["data", "metrics", "flags", "meta", "refs", "type", "session", "user", "agent"]);
/** Reference keys of older SDKs, under the names they have now. */
const LEGACY_REFERENCES: [string, string][] = [
  ["ag.references.variant.id", "ag.references.application_variant.id"],
  ["ag.references.variant.slug", "ag.references.application_variant.slug"],
  ["ag.references.variant.version", "ag.references.application_revision.version"],
  ["ag.references.environment.version", "ag.references.environment_revision.version"],
];
const METRIC_RENAMES: [string, string][] = [
  ["acc.costs.", "costs.cumulative."], ["unit.costs.", "costs.incremental."],
  ["acc.tokens.", "tokens.cumulative."], ["unit.tokens.", "tokens.incremental."],
];
const RENAMED_METRIC = /(?:acc|unit)\.(?:costs|tokens)\./;

/** `@ag.type=json:<json>` is the JSON value, `@ag.type=none:` is null; anything else is itself. */
export function decodeValue(value: unknown): unknown {
  if (typeof value !== "string") return value;
  if (value === "@ag.type=none:") return null;
  if (!value.startsWith("@ag.type=json:")) return value;
  try {
    return JSON.parse(value.slice("@ag.type=json:".length));
  } catch {
    return value;
  }
}

/**
 * The span's attributes, flat, its `ag.*` namespaces decoded: `ag.refs.*` also as `ag.references.*`, legacy
 * reference keys renamed, `ag.type.node` as `ag.type.span`, metrics under their incremental and cumulative names.
 * A Map, in the order the keys are unflattened in (dotted keys meeting at a prefix resolve in that order).
 */
function decodedAttributes(given: Record<string, unknown>): Map<string, unknown> {
  const attributes = new Map(Object.entries(given));
  const features = new Map<string, [key: string, rest: string, value: unknown][]>();
  const ag = agAttributes(given);
  for (const key of Object.keys(ag)) {
    const dot = key.startsWith("ag.") ? key.indexOf(".", 3) : -1;
    const feature = dot > 3 ? key.slice(3, dot) : "";
    if (!NAMESPACES.has(feature)) continue;
    const entry: [string, string, unknown] = [key, key.slice(dot + 1), decodeValue(ag[key])];
    const list = features.get(feature);
    if (list) list.push(entry);
    else features.set(feature, [entry]);
  }
  for (const list of features.values()) if (list.some(([, rest]) => isArrayIndex(rest))) list.sort(byIndexFirst);
  for (const feature of ["data", "flags", "meta", "session", "user", "agent"]) {
    for (const [key, , value] of features.get(feature) ?? []) attributes.set(key, value);
  }
  for (const [, rest, value] of features.get("refs") ?? []) attributes.set(`ag.references.${rest}`, value);
  for (const [old, now] of LEGACY_REFERENCES) {
    if (attributes.has(old)) {
      attributes.set(now, attributes.get(old));
      attributes.delete(old);
    }
  }
  for (const [key, rest, value] of features.get("type") ?? []) {
    attributes.delete(key);
    if (rest === "node") attributes.set("ag.type.span", typeof value === "string" ? value.toLowerCase() : null);
  }
  for (const [key, rest, value] of features.get("metrics") ?? []) {
    attributes.delete(key);
    const renamed = RENAMED_METRIC.test(rest) ? METRIC_RENAMES.reduce((k, [f, t]) => k.replaceAll(f, t), rest) : rest;
    if (rest !== "acc.duration.total") attributes.set(`ag.metrics.${renamed}`, value);
  }
  return attributes;
}

/** Whether a key is one a JavaScript object enumerates first (the namespaces were objects: their order is kept). */
const isArrayIndex = (key: string) => /^(?:0|[1-9]\d*)$/.test(key) && Number(key) < 2 ** 32 - 1;
/** Array-index keys first, ascending, then the others in their order (a stable sort), as an object holds them. */
const byIndexFirst = ([, a]: [string, string, unknown], [, b]: [string, string, unknown]) =>
  isArrayIndex(a) ? (isArrayIndex(b) ? Number(a) - Number(b) : -1) : isArrayIndex(b) ? 1 : 0;

/**
 * Whether attributes may unflatten and clean into a value nested past the limit: not when every value is a scalar
 * and every key too short to have that many parts (cleaning nests a value at most two levels deeper).
 */
function mayNestTooDeep(attributes: Map<string, unknown>): boolean {
  for (const [key, value] of attributes) {
    if ((typeof value === "object" && value !== null) || key.length >= 2 * (MAX_JSON_DEPTH - 3)) return true;
  }
  return false;
}

/** The span as stored, its trace type still unknown (the batch decides it: rollup.ts). */
export function normalizeSpan(otel: OtelSpan): Span {
  const attributes = decodedAttributes(otel.attributes);
  const cleaned = cleanAgAttributes(unflatten(attributes));
  // Storing walks the value recursively: a span nested past the limit (by dotted keys or a JSON value) is refused.
  if (mayNestTooDeep(attributes) && tooDeep(cleaned)) {
    throw new Error(`attributes are nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
  const ag = cleaned.ag as Record<string, any>;
  const metrics = ag.metrics as Record<string, Record<string, unknown>>;
  const startMicros = otel.startNs / 1000n;
  const endMicros = otel.endNs / 1000n;
  const duration = Math.round(Number(endMicros - startMicros)) / 1000;
  if (duration > 0) metrics.duration!.cumulative = duration;

  const events = otel.events.map((event) => ({
    name: event.name, timestamp: isoFromNanos(event.timeNs), attributes: event.attributes,
  }));
  if (events.length > 0) metrics.errors!.incremental = events.filter((e) => e.name === "exception").length;

  const references: SpanReference[] = [];
  for (const [key, ref] of Object.entries(isObject(ag.references) ? ag.references : {})) {
    if (!isObject(ref)) continue;
    const entry: SpanReference = { attributes: { key } };
    if (ref.id) entry.id = traceIdToUuid(String(ref.id));
    if (ref.slug) entry.slug = String(ref.slug);
    if (ref.version) entry.version = String(ref.version);
    references.push(entry);
  }

  return {
    trace_id: traceIdToUuid(otel.traceId),
    span_id: spanIdToUuid(otel.spanId),
    parent_id: otel.parentId ? spanIdToUuid(otel.parentId) : null,
    trace_type: "unknown",
    span_type: typeof ag.type?.span === "string" ? ag.type.span : "task",
    span_kind: otel.kind,
    span_name: otel.name,
    start_time: isoFromNanos(otel.startNs),
    end_time: isoFromNanos(otel.endNs),
    status_code: otel.statusCode,
    status_message: otel.statusMessage,
    session_id: null,
    user_id: null,
    agent_id: null,
    attributes: cleaned,
    references: isObject(ag.references) ? references : null,
    links: otel.links?.map((link) => ({
      trace_id: traceIdToUuid(link.traceId), span_id: spanIdToUuid(link.spanId), attributes: link.attributes,
    })) ?? null,
    events: events.length > 0 ? events : null,
  };
}
