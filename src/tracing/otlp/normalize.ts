/*
 * An OTLP span in the reference's span model (its OTelFlatSpanBuilder, then `_parse_span_from_request`): the
 * `ag.*` namespaces decoded (`@ag.type=json:` values parsed), `ag.refs.*` as references, `ag.metrics.unit.*` and
 * `acc.*` as incremental and cumulative metrics, `ag.type.node` as the span type, dotted keys unflattened, the
 * duration and the exception events counted into the metrics. Other conventions' attributes (OpenLLMetry,
 * OpenInference, GenAI, Vercel AI SDK) are mapped onto `ag.*` first (adapters/).
 */

import { MAX_JSON_DEPTH, tooDeep } from "../../json-depth.ts";
import { cleanAgAttributes, isObject } from "../ag-attributes.ts";
import { setOwn } from "../own-property.ts";
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

/** The span as stored, its trace type still unknown (the batch decides it: rollup.ts). */
export function normalizeSpan(otel: OtelSpan): Span {
  const attributes: Record<string, unknown> = { ...otel.attributes };
  const features: Record<string, Record<string, unknown>> = {};
  for (const [key, value] of Object.entries(agAttributes(otel.attributes))) {
    const dot = key.startsWith("ag.") ? key.indexOf(".", 3) : -1;
    const feature = dot > 3 ? key.slice(3, dot) : "";
    if (NAMESPACES.has(feature)) setOwn((features[feature] ??= {}), key.slice(dot + 1), decodeValue(value));
  }
  for (const feature of ["data", "flags", "meta", "session", "user", "agent"]) {
    for (const [key, value] of Object.entries(features[feature] ?? {})) attributes[`ag.${feature}.${key}`] = value;
  }
  for (const [key, value] of Object.entries(features.refs ?? {})) attributes[`ag.references.${key}`] = value;
  for (const [old, now] of LEGACY_REFERENCES) {
    if (old in attributes) {
      attributes[now] = attributes[old];
      delete attributes[old];
    }
  }
  for (const [key, value] of Object.entries(features.type ?? {})) {
    delete attributes[`ag.type.${key}`];
    if (key === "node") attributes["ag.type.span"] = typeof value === "string" ? value.toLowerCase() : null;
  }
  for (const [key, value] of Object.entries(features.metrics ?? {})) {
    delete attributes[`ag.metrics.${key}`];
    const renamed = METRIC_RENAMES.reduce((k, [from, to]) => k.replaceAll(from, to), key);
    if (key !== "acc.duration.total") attributes[`ag.metrics.${renamed}`] = value;
  }

  const cleaned = cleanAgAttributes(unflatten(attributes));
  // Storing walks the value recursively: a span nested past the limit (by dotted keys or a JSON value) is refused.
  if (tooDeep(cleaned)) throw new Error(`attributes are nested deeper than ${MAX_JSON_DEPTH} levels`);
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
