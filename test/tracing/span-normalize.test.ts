import { describe, expect, it } from "vitest";
import { normalizeSpan } from "../../src/tracing/otlp/normalize.ts";
import type { OtelSpan } from "../../src/tracing/otlp/otlp-spans.ts";
import { rollUp } from "../../src/tracing/rollup.ts";
import { isoFromNanos } from "../../src/tracing/span.ts";

// The span model's in-process steps, below the OTLP route (span-model.test.ts sends the same through HTTP).

const TRACE = "0af7651916cd43dd8448eb211c80319c";
const otel = (spanId: string, parentId: string | null, attributes: Record<string, unknown>): OtelSpan => ({
  traceId: TRACE, spanId, parentId, name: spanId, kind: "SPAN_KIND_INTERNAL", startNs: 1_700_000_000_000_000_000n,
  endNs: 1_700_000_000_500_000_000n, statusCode: "STATUS_CODE_UNSET", statusMessage: null, attributes, events: [],
  links: null,
});
const tokens = (prompt: number) =>
  ({ "ag.metrics.unit.tokens.prompt": prompt, "ag.metrics.unit.tokens.total": prompt });

describe("span times", () => {
  it("are ISO 8601 with microseconds, in any order of seconds and past 2255", () => {
    expect(isoFromNanos(1_700_000_000_123_456_789n)).toBe("2023-11-14T22:13:20.123456Z");
    expect(isoFromNanos(1_700_000_001_000_000_999n)).toBe("2023-11-14T22:13:21.000000Z");
    expect(isoFromNanos(1_700_000_000_000_001_000n)).toBe("2023-11-14T22:13:20.000001Z");
    expect(isoFromNanos(0n)).toBe("1970-01-01T00:00:00.000000Z");
    expect(isoFromNanos(253_402_300_799_999_999_999n)).toBe("9999-12-31T23:59:59.999999Z");
  });
});

describe("a span's attributes, normalised", () => {
  it("decode the ag namespaces and rename references, types and metrics", () => {
    const span = normalizeSpan(otel("b7ad6b7169203331", null, {
      "ag.type.node": "CHAT", "ag.data.inputs": '@ag.type=json:{"q":1}', "ag.refs.application.slug": "capitals",
      "ag.references.variant.slug": "main", ...tokens(5), "ag.metrics.acc.duration.total": 9, other: "kept",
    }));
    expect(span.span_type).toBe("chat");
    expect(span.attributes).toMatchObject({
      other: "kept",
      ag: {
        type: { span: "chat" }, data: { inputs: { q: 1 } },
        references: { application: { slug: "capitals" }, application_variant: { slug: "main" } },
        metrics: { tokens: { incremental: { prompt: 5, total: 5 } }, duration: { cumulative: 500 } },
      },
    });
    expect(span.references).toEqual(expect.arrayContaining([{ slug: "capitals", attributes: { key: "application" } }]));
  });

  it("keep a namespace's array-index keys first, as they always came, when keys meet at a prefix", () => {
    // ag.refs.5 meets ag.refs.application.id as an array at ag.references: the later one is left out.
    const span = normalizeSpan(otel("b7ad6b7169203331", null, { "ag.refs.application.id": "x", "ag.refs.5": "y" }));
    expect(span.references).toBeNull();
    expect(span.attributes.ag.references).toBeUndefined();
  });
});

describe("a batch's spans, rolled up", () => {
  it("sum children into parents, the last of two spans with one id counted once", () => {
    const spans = rollUp([
      normalizeSpan(otel("0000000000000001", null, tokens(1))),
      normalizeSpan(otel("0000000000000002", "0000000000000001", tokens(10))),
      normalizeSpan(otel("0000000000000002", "0000000000000001", tokens(20))),
      normalizeSpan(otel("0000000000000003", "0000000000000002", tokens(100))),
      normalizeSpan(otel("0000000000000004", "0000000000000009", tokens(1000))),
    ]);
    const cumulative = (i: number) => spans[i]!.attributes.ag.metrics.tokens.cumulative?.prompt;
    expect([cumulative(0), cumulative(2), cumulative(3), cumulative(4)]).toEqual([121, 120, 100, 1000]);
    expect(spans.every((span) => span.trace_type === "invocation")).toBe(true);
  });

  it("leave spans whose parents form a cycle as they came", () => {
    const spans = rollUp([
      normalizeSpan(otel("0000000000000001", "0000000000000002", tokens(1))),
      normalizeSpan(otel("0000000000000002", "0000000000000001", tokens(2))),
    ]);
    expect(spans.map((span) => span.attributes.ag.metrics.tokens.cumulative)).toEqual([undefined, undefined]);
  });
});
