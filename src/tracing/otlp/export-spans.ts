import { badRequest } from "../../errors.ts";
import type { Span } from "../span.ts";
import { decompress } from "./decompress.ts";
import { normalizeSpan } from "./normalize.ts";
import { otlpSpans } from "./otlp-spans.ts";
import { decodeExportRequest } from "./protobuf.ts";

/**
 * The spans an OTLP export request carries (protobuf or JSON, compressed or not), normalised, and how many were
 * left out because they could not be read. Throws a 400 when the body is no export request or no span of it could be
 * read, a 413 when it inflates past `maxInflated` bytes.
 */
export function exportSpans(body: Buffer, protobuf: boolean, maxInflated: number): { spans: Span[]; rejected: number } {
  const raw = decompress(body, maxInflated);
  let request: unknown;
  try {
    request = protobuf ? decodeExportRequest(raw) : JSON.parse(raw.toString("utf8"));
  } catch {
    const encoding = protobuf ? "protobuf" : "JSON";
    throw badRequest(`Failed to parse OTLP stream: not an ExportTraceServiceRequest in ${encoding}.`);
  }
  let read;
  try {
    read = otlpSpans(request, protobuf ? "bytes" : "hex");
  } catch {
    throw badRequest("Failed to parse OTLP stream: an export request is an object with resourceSpans.");
  }
  const spans: Span[] = [];
  let rejected = read.rejected;
  for (const otel of read.spans) {
    try {
      spans.push(normalizeSpan(otel));
    } catch {
      rejected++;
    }
  }
  if (rejected > 0 && spans.length === 0) {
    throw badRequest("Failed to parse OTEL span: no span of the batch could be read.");
  }
  return { spans, rejected };
}
