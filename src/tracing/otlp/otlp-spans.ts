/*
 * The spans of an OTLP export request (the plain object of its protobuf, or its OTLP/JSON), one by one: a span
 * that cannot be read is counted and left out, and the others are kept, as the reference's parser does.
 */

import { MAX_JSON_DEPTH } from "../../json-depth.ts";
import { setOwn } from "../own-property.ts";

/** A span as OTLP carries it, ids in hex and times in nanoseconds (the reference's OTelSpanDTO). */
export interface OtelSpan {
  traceId: string;
  spanId: string;
  parentId: string | null;
  name: string;
  kind: string;
  startNs: bigint;
  endNs: bigint;
  statusCode: string;
  statusMessage: string | null;
  attributes: Record<string, unknown>;
  events: { name: string; timeNs: bigint; attributes: Record<string, unknown> }[];
  links: { traceId: string; spanId: string; attributes: Record<string, unknown> }[] | null;
}

/** How ids are written: bytes in the protobuf's plain object (protobuf.ts), hex in OTLP/JSON. */
export type IdEncoding = "bytes" | "hex";

/** The span kinds OTLP names. */
export const SPAN_KINDS = [
  "SPAN_KIND_UNSPECIFIED", "SPAN_KIND_INTERNAL", "SPAN_KIND_SERVER", "SPAN_KIND_CLIENT", "SPAN_KIND_PRODUCER",
  "SPAN_KIND_CONSUMER",
];
/** The status codes OTLP names. */
export const STATUS_CODES = ["STATUS_CODE_UNSET", "STATUS_CODE_OK", "STATUS_CODE_ERROR"];

type Json = Record<string, unknown>;
const list = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isObject) : []);
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Every span of the request that could be read, and how many could not. */
export function otlpSpans(request: unknown, ids: IdEncoding): { spans: OtelSpan[]; rejected: number } {
  const spans: OtelSpan[] = [];
  let rejected = 0;
  if (!isObject(request)) throw new Error("an OTLP export request is an object");
  for (const resourceSpans of list(request.resourceSpans)) {
    for (const scopeSpans of list(resourceSpans.scopeSpans)) {
      const raw = Array.isArray(scopeSpans.spans) ? scopeSpans.spans : [];
      for (const span of raw) {
        try {
          spans.push(readSpan(span, ids));
        } catch {
          rejected++;
        }
      }
    }
  }
  return { spans, rejected };
}

function readSpan(span: unknown, ids: IdEncoding): OtelSpan {
  if (!isObject(span)) throw new Error("a span is an object");
  const parentId = span.parentSpanId;
  const parent = parentId === undefined || (parentId as string | Uint8Array).length === 0 ? null : id(parentId, ids, 8);
  const statusObject = isObject(span.status) ? span.status : {};
  const message = typeof statusObject.message === "string" && statusObject.message !== "" ? statusObject.message : null;
  return {
    traceId: id(span.traceId, ids, 16),
    spanId: id(span.spanId, ids, 8),
    parentId: parent,
    name: typeof span.name === "string" ? span.name : "",
    kind: enumName(span.kind, SPAN_KINDS, "span kind"),
    startNs: nanos(span.startTimeUnixNano),
    endNs: nanos(span.endTimeUnixNano),
    statusCode: enumName(statusObject.code, STATUS_CODES, "status code"),
    statusMessage: message,
    attributes: keyValues(span.attributes, 0),
    events: list(span.events).map((event) => ({
      name: typeof event.name === "string" ? event.name : "",
      timeNs: nanos(event.timeUnixNano),
      attributes: keyValues(event.attributes, 0),
    })),
    links: Array.isArray(span.links) && span.links.length > 0
      ? list(span.links).map((link) => ({
        traceId: id(link.traceId, ids, 16), spanId: id(link.spanId, ids, 8), attributes: keyValues(link.attributes, 0),
      }))
      : null,
  };
}

const HEX = /^[0-9a-fA-F]*$/;

/** An id as lower-case hex of exactly `bytes` bytes; anything else makes the span unreadable. */
function id(value: unknown, encoding: IdEncoding, bytes: number): string {
  let hex: string;
  if (encoding === "bytes") {
    if (!(value instanceof Uint8Array)) throw new Error("an id is bytes");
    hex = Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("hex");
  } else {
    if (typeof value !== "string") throw new Error("an id is a string");
    hex = HEX.test(value) ? value.toLowerCase() : Buffer.from(value, "base64").toString("hex");
  }
  if (hex.length !== bytes * 2) throw new Error(`an id has ${bytes} bytes`);
  return hex;
}

/** A 64-bit integer as protobufjs decodes it (a `Long`: two 32-bit halves), or null for anything else. */
function longParts(value: unknown): { low: number; high: number } | null {
  if (!isObject(value) || typeof value.low !== "number" || typeof value.high !== "number") return null;
  return { low: value.low, high: value.high };
}

function enumName(value: unknown, names: string[], what: string): string {
  if (value === undefined || value === null) return names[0]!;
  if (typeof value === "string" && names.includes(value)) return value;
  const index = typeof value === "number" ? value
    : typeof value === "string" && /^\d+$/.test(value) ? Number(value) : -1;
  const name = names[index];
  if (name === undefined) throw new Error(`unknown ${what} ${String(value)}`);
  return name;
}

function nanos(value: unknown): bigint {
  if (value === undefined || value === null) return 0n;
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === "string" && /^\d{1,20}$/.test(value)) return BigInt(value);
  // fixed64: unsigned.
  const long = longParts(value);
  if (long) return (BigInt(long.high >>> 0) << 32n) | BigInt(long.low >>> 0);
  throw new Error("a time is a count of nanoseconds");
}

function keyValues(value: unknown, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of list(value)) {
    if (typeof kv.key !== "string") throw new Error("an attribute has a string key");
    setOwn(out, kv.key, anyValue(kv.value, depth + 1));
  }
  return out;
}

/** An AnyValue as the plain value it holds (kvlists as objects, arrays as arrays, bytes as base64). */
function anyValue(value: unknown, depth: number): unknown {
  if (depth > MAX_JSON_DEPTH) throw new Error(`attribute values are nested deeper than ${MAX_JSON_DEPTH} levels`);
  if (!isObject(value)) return null;
  if ("stringValue" in value) return String(value.stringValue);
  if ("boolValue" in value) return Boolean(value.boolValue);
  if ("intValue" in value) {
    // int64: signed, its high half too. Past 2^53 a number is as near as it can be, as JSON text would give it.
    const long = longParts(value.intValue);
    return long ? long.high * 2 ** 32 + (long.low >>> 0) : Number(value.intValue);
  }
  if ("doubleValue" in value) return Number(value.doubleValue);
  if ("arrayValue" in value) {
    const values = isObject(value.arrayValue) && Array.isArray(value.arrayValue.values) ? value.arrayValue.values : [];
    return values.map((item) => anyValue(item, depth + 1));
  }
  if ("kvlistValue" in value) return keyValues(isObject(value.kvlistValue) ? value.kvlistValue.values : [], depth);
  if ("bytesValue" in value) {
    const bytes = value.bytesValue;
    if (!(bytes instanceof Uint8Array)) return String(bytes);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  }
  return null;
}
