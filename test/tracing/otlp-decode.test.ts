import { describe, expect, it } from "vitest";
import { otlpSpans } from "../../src/tracing/otlp/otlp-spans.ts";
import { decodeExportRequest } from "../../src/tracing/otlp/protobuf.ts";
import { attributes, exportRequest } from "./otlp-support.ts";

// A protobuf request is read from its decoded bytes and 64-bit integers, not from text made of them.

describe("an OTLP protobuf request, decoded", () => {
  it("gives ids, nanosecond times and attribute values exactly as they were sent", () => {
    const start = 1_700_000_000_123_456_789n;
    const request = exportRequest([{
      traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", parentSpanId: "", name: "root",
      start, end: start + 1_001n,
      attributes: [
        ...attributes({ negative: -3, large: 2 ** 40 + 1, ratio: 0.25 }),
        { key: "blob", value: { bytesValue: Buffer.from("hi") } } as never,
      ],
    }, {
      traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "00f067aa0ba902b7", parentSpanId: "b7ad6b7169203331",
      name: "child", start, end: start,
    }]);
    const { spans, rejected } = otlpSpans(decodeExportRequest(request), "bytes");
    expect(rejected).toBe(0);
    expect(spans[0]).toMatchObject({
      traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", parentId: null,
      startNs: start, endNs: start + 1_001n,
      attributes: { negative: -3, large: 2 ** 40 + 1, ratio: 0.25, blob: "aGk=" },
    });
    expect(spans[1]).toMatchObject({ spanId: "00f067aa0ba902b7", parentId: "b7ad6b7169203331" });
  });
});
