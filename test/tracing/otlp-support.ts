import { createRequire } from "node:module";

/*
 * OTLP requests for tests, encoded with the protobufjs code @opentelemetry/otlp-transformer generated from the
 * official opentelemetry-proto definitions.
 */

type MessageType = {
  fromObject(o: object): object;
  encode(m: object): { finish(): Uint8Array };
  decode(b: Uint8Array): object;
  toObject(m: object, o?: object): Record<string, any>;
};
const root = createRequire(import.meta.url)("@opentelemetry/otlp-transformer/build/src/generated/root.js");
const v1 = root.opentelemetry.proto.collector.trace.v1 as Record<string, MessageType>;

/** An attribute list from a plain object (strings, numbers, booleans). */
export function attributes(values: Record<string, string | number | boolean>) {
  return Object.entries(values).map(([key, value]) => ({
    key,
    value: typeof value === "string" ? { stringValue: value }
      : typeof value === "boolean" ? { boolValue: value }
      : Number.isInteger(value) ? { intValue: value } : { doubleValue: value },
  }));
}

/** A span for `exportRequest`: ids in hex, times in nanoseconds since the epoch. */
export interface TestSpan {
  traceId: string;
  spanId: string;
  /** Sent when given, "" as an empty field (as some exporters send a root's). */
  parentSpanId?: string;
  name: string;
  kind?: number;
  start: bigint;
  end: bigint;
  attributes?: ReturnType<typeof attributes>;
  links?: { traceId: string; spanId: string }[];
  events?: { name: string; timeUnixNano: bigint; attributes?: ReturnType<typeof attributes> }[];
}

/** An ExportTraceServiceRequest in protobuf. */
export function exportRequest(spans: TestSpan[]): Buffer {
  const hex = (id: string) => Buffer.from(id, "hex");
  const message = v1.ExportTraceServiceRequest!.fromObject({
    resourceSpans: [{
      scopeSpans: [{
        spans: spans.map((s) => ({
          traceId: hex(s.traceId), spanId: hex(s.spanId),
          ...(s.parentSpanId !== undefined ? { parentSpanId: hex(s.parentSpanId) } : {}),
          name: s.name, kind: s.kind ?? 1, startTimeUnixNano: String(s.start), endTimeUnixNano: String(s.end),
          attributes: s.attributes ?? [],
          links: (s.links ?? []).map((l) => ({ traceId: hex(l.traceId), spanId: hex(l.spanId) })),
          events: (s.events ?? []).map((e) =>
            ({ name: e.name, timeUnixNano: String(e.timeUnixNano), attributes: e.attributes ?? [] })),
        })),
      }],
    }],
  });
  return Buffer.from(v1.ExportTraceServiceRequest!.encode(message).finish());
}

/** The rejected span count of a protobuf ExportTraceServiceResponse (0 when it reports none). */
export function rejectedSpans(body: Buffer): number {
  const type = v1.ExportTraceServiceResponse!;
  const response = type.toObject(type.decode(body), { longs: Number });
  return response.partialSuccess?.rejectedSpans ?? 0;
}

/** A random id of `bytes` bytes, in hex. */
export const randomHex = (bytes: number) => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");

/** Nanoseconds since the epoch of a time `ms` milliseconds from now. */
export const nanos = (ms = 0) => BigInt(Date.now() + ms) * 1_000_000n;
