import { createRequire } from "node:module";
import protobuf from "protobufjs";

/*
 * The OTLP messages come from the protobufjs code that @opentelemetry/otlp-transformer generated from the official
 * opentelemetry-proto definitions (common, resource, trace and collector/trace v1). `google.rpc.Status`, the body
 * OTLP/HTTP answers errors with, is built from its definition in googleapis' google/rpc/status.proto.
 */

interface MessageType {
  decode(reader: Uint8Array): object;
  toObject(message: object, options: protobuf.IConversionOptions): Record<string, unknown>;
  fromObject(object: Record<string, unknown>): object;
  encode(message: object): { finish(): Uint8Array };
}

const generated = createRequire(import.meta.url)("@opentelemetry/otlp-transformer/build/src/generated/root.js") as {
  opentelemetry: { proto: { collector: { trace: { v1: Record<string, MessageType> } } } };
};
const service = generated.opentelemetry.proto.collector.trace.v1;
const ExportTraceServiceRequest = service.ExportTraceServiceRequest!;
const ExportTraceServiceResponse = service.ExportTraceServiceResponse!;

const Status = protobuf.Root.fromJSON({
  nested: {
    google: {
      nested: {
        rpc: {
          nested: {
            Status: { fields: { code: { type: "int32", id: 1 }, message: { type: "string", id: 2 } } },
          },
        },
      },
    },
  },
}).lookupType("google.rpc.Status");

/**
 * An `ExportTraceServiceRequest` in protobuf as the plain object OTLP/JSON spells it, except that ids and other
 * bytes stay bytes (Buffers) and 64-bit integers stay `Long`s (`{low, high}`), as decoded: OTLP/JSON writes them as
 * hex and decimal text, which the request's reader would only parse again. Throws on bytes that are not such a
 * message.
 */
export function decodeExportRequest(bytes: Uint8Array): Record<string, unknown> {
  const message = ExportTraceServiceRequest.decode(bytes);
  return ExportTraceServiceRequest.toObject(message, { enums: Number });
}

/** A protobuf `ExportTraceServiceResponse`; with `partialSuccess` when some spans were refused. */
export function encodeExportResponse(rejectedSpans: number, errorMessage: string): Uint8Array {
  const body = rejectedSpans > 0 ? { partialSuccess: { rejectedSpans, errorMessage } } : {};
  return ExportTraceServiceResponse.encode(ExportTraceServiceResponse.fromObject(body)).finish();
}

/** A protobuf `google.rpc.Status` carrying `message` (the reference sets no code: 0). */
export function encodeStatus(message: string): Uint8Array {
  return Status.encode(Status.fromObject({ message })).finish();
}
