/** A reference a span names (`ag.references.<key>`), as the reference stores it. */
export interface SpanReference {
  id?: string;
  slug?: string;
  version?: string;
  attributes: { key: string };
}

/** A link to another span, ids in their stored (uuid) form. */
export interface SpanLink {
  trace_id: string;
  span_id: string;
  attributes?: Record<string, unknown>;
}

/** An event of a span, its time as ISO 8601 with microseconds. */
export interface SpanEvent {
  name: string;
  timestamp: string;
  attributes: Record<string, unknown>;
}

/** A span in the reference's span model, as stored: ids as uuids, times as ISO 8601 with microseconds. */
export interface Span {
  trace_id: string;
  span_id: string;
  parent_id: string | null;
  trace_type: string;
  span_type: string;
  span_kind: string;
  span_name: string;
  start_time: string;
  end_time: string;
  status_code: string;
  status_message: string | null;
  session_id: string | null;
  user_id: string | null;
  agent_id: string | null;
  attributes: Record<string, any>;
  references: SpanReference[] | null;
  links: SpanLink[] | null;
  events: SpanEvent[] | null;
}

const uuidOf = (hex: string) =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
const UUID_HEX = /^[0-9a-f]{32}$/;
const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SPAN_HEX = /^[0-9a-f]{16}$/;

/** A trace id (32 hex digits, `0x`-prefixed or not, or a uuid) as its uuid; throws on anything else. */
export function traceIdToUuid(id: string): string {
  // Ids this server made (every hosted invocation's) are already 32 lowercase hex digits.
  if (id.length === 32 && UUID_HEX.test(id)) return uuidOf(id);
  // References name what they point at by uuid, already spelled as stored.
  if (id.length === 36 && UUID_TEXT.test(id)) return id;
  const hex = id.toLowerCase().replace(/^0x/, "").replaceAll("-", "");
  if (!UUID_HEX.test(hex)) throw new Error(`not a trace id: ${id}`);
  return uuidOf(hex);
}

/** A span id (16 hex digits, stored as them twice, or already a uuid) as its uuid; throws on anything else. */
export function spanIdToUuid(id: string): string {
  if (SPAN_HEX.test(id)) return uuidOf(id + id);
  const hex = id.toLowerCase().replace(/^0x/, "").replaceAll("-", "");
  if (SPAN_HEX.test(hex)) return uuidOf(hex + hex);
  if (!UUID_HEX.test(hex)) throw new Error(`not a span id: ${id}`);
  return uuidOf(hex);
}

/** The 32 hex digits of a stored trace id (what the reference answers). */
export const traceIdHex = (uuid: string) => uuid.replaceAll("-", "");
/** The 16 hex digits of a stored span id (what the reference answers). */
export const spanIdHex = (uuid: string) => uuid.replaceAll("-", "").slice(16);

/** The last second `isoFromNanos` wrote, and its text up to the fraction: a batch's times fall in few seconds. */
let second = NaN;
let secondText = "";

/** Nanoseconds since the epoch as ISO 8601 with microseconds (what timestamptz keeps). */
export function isoFromNanos(ns: bigint): string {
  const micros = ns / 1000n;
  // Number arithmetic while the count is exact as a number (until 2255); BigInt's costs more than the date.
  const m = Number(micros);
  const safe = Number.isSafeInteger(m);
  const s = safe ? Math.floor(m / 1e6) : Number(micros / 1_000_000n);
  const rest = safe ? m - s * 1e6 : Number(micros % 1_000_000n);
  if (s !== second) {
    secondText = new Date(s * 1000).toISOString().slice(0, -4);
    second = s;
  }
  return `${secondText}${String(rest).padStart(6, "0")}Z`;
}
