/*
 * Spans sent as JSON in the reference's span model (`POST /tracing/spans/ingest`): hex ids, times as ISO 8601
 * or numbers, attributes nested or dotted. Each is read as an OTLP span would be, so one normalisation serves both.
 */

import type { Scope } from "../accounts/scope.ts";
import type { Database } from "../db/database.ts";
import { badRequest } from "../errors.ts";
import { isObject } from "./ag-attributes.ts";
import { normalizeSpan } from "./otlp/normalize.ts";
import { SPAN_KINDS, STATUS_CODES, type OtelSpan } from "./otlp/otlp-spans.ts";
import { setOwn } from "./own-property.ts";
import { timestampOf } from "./query/timestamps.ts";
import { rollUp } from "./rollup.ts";
import type { Span } from "./span.ts";
import { storeSpans } from "./spans.ts";

type Json = Record<string, unknown>;

/** Nested objects as dotted keys (arrays stay values), as OTLP attributes arrive. */
function flatten(value: Json, prefix = "", into: Json = {}): Json {
  for (const [key, inner] of Object.entries(value)) {
    if (isObject(inner) && Object.keys(inner).length > 0) flatten(inner, `${prefix}${key}.`, into);
    else setOwn(into, `${prefix}${key}`, inner);
  }
  return into;
}

/** A time the reference reads (ISO 8601, or seconds to nanoseconds) as nanoseconds; throws on anything else. */
function nanosOf(value: unknown, what: string): bigint {
  const iso = timestampOf(value);
  const ms = iso === null ? Number.NaN : Date.parse(iso);
  if (Number.isNaN(ms)) throw new Error(`${what} is not a time: ${JSON.stringify(value)}`);
  const micros = /\.\d{3}(\d{1,3})/.exec(iso!)?.[1]?.padEnd(3, "0") ?? "0";
  return BigInt(ms) * 1_000_000n + BigInt(micros) * 1000n;
}

const text = (value: unknown, fallback: string) => (typeof value === "string" ? value : fallback);
const oneOf = (value: unknown, known: string[], fallback: string, what: string) => {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "string" || !known.includes(value)) throw new Error(`${what} is not one of ${known}`);
  return value;
};
const hexId = (value: unknown, what: string) => {
  if (typeof value !== "string") throw new Error(`${what} is missing`);
  return value;
};

/** A JSON span as an OTLP span; throws (with what is wrong) when its ids or times cannot be read. */
export function jsonSpan(span: Json): OtelSpan {
  const attributes = isObject(span.attributes) ? flatten(span.attributes) : {};
  const events = Array.isArray(span.events) ? span.events.filter(isObject) : [];
  const links = Array.isArray(span.links) ? span.links.filter(isObject) : null;
  return {
    traceId: hexId(span.trace_id, "trace_id"),
    spanId: hexId(span.span_id, "span_id"),
    parentId: typeof span.parent_id === "string" ? span.parent_id : null,
    name: text(span.span_name, ""),
    kind: oneOf(span.span_kind, SPAN_KINDS, "SPAN_KIND_UNSPECIFIED", "span_kind"),
    startNs: nanosOf(span.start_time, "start_time"),
    endNs: nanosOf(span.end_time ?? span.start_time, "end_time"),
    statusCode: oneOf(span.status_code, STATUS_CODES, "STATUS_CODE_UNSET", "status_code"),
    statusMessage: typeof span.status_message === "string" ? span.status_message : null,
    attributes,
    events: events.map((event) => ({
      name: text(event.name, ""),
      timeNs: nanosOf(event.timestamp ?? span.start_time, "an event's timestamp"),
      attributes: isObject(event.attributes) ? event.attributes : {},
    })),
    links: links?.map((link) => ({
      traceId: hexId(link.trace_id, "a link's trace_id"),
      spanId: hexId(link.span_id, "a link's span_id"),
      attributes: isObject(link.attributes) ? link.attributes : {},
    })) ?? null,
  };
}

/** The spans of the reference's trace body: `{spans: [...]}`, or `{traces: {id: {spans: tree}}}` flattened. */
export function spansOfTraceBody(body: Json): Json[] {
  if (Array.isArray(body.spans)) return body.spans.filter(isObject);
  const found: Json[] = [];
  const walk = (tree: unknown) => {
    if (Array.isArray(tree)) tree.forEach(walk);
    else if (isObject(tree)) {
      const { spans, ...span } = tree;
      found.push(span);
      if (isObject(spans)) Object.values(spans).forEach(walk);
    }
  };
  for (const trace of Object.values(isObject(body.traces) ? body.traces : {})) {
    if (isObject(trace) && isObject(trace.spans)) Object.values(trace.spans).forEach(walk);
  }
  return found;
}

/**
 * The spans of the preview router's traces (`[{trace_id, spans: {<name>: span}}]`, children under `spans`), each
 * with its trace's id, its parent's id and, when it names none, the time of the request, as the reference fills
 * them in.
 */
export function spansOfTraceList(traces: unknown[]): Json[] {
  const now = new Date().toISOString();
  const found: Json[] = [];
  const walk = (tree: unknown, traceId: unknown, parentId: unknown) => {
    if (Array.isArray(tree)) return tree.forEach((node) => walk(node, traceId, parentId));
    if (!isObject(tree)) return;
    const { spans, ...span } = tree;
    span.trace_id ??= traceId;
    if (parentId !== null) span.parent_id ??= parentId;
    span.start_time ??= now;
    span.end_time ??= span.start_time;
    found.push(span);
    if (isObject(spans)) Object.values(spans).forEach((child) => walk(child, span.trace_id, span.span_id));
  };
  for (const trace of traces) {
    if (isObject(trace) && isObject(trace.spans)) {
      Object.values(trace.spans).forEach((root) => walk(root, trace.trace_id, null));
    }
  }
  return found;
}

/** Normalises and stores JSON spans in the caller's project: the spans stored; a `400` when one cannot be read. */
export async function ingestJsonSpans(db: Database, scope: Scope, sent: Json[]): Promise<Span[]> {
  let spans: Span[];
  try {
    spans = sent.map((span) => normalizeSpan(jsonSpan(span)));
  } catch (error) {
    throw badRequest(`A span cannot be read: ${(error as Error).message}`);
  }
  if (spans.length > 0) await storeSpans(db, scope, rollUp(spans));
  return spans;
}
