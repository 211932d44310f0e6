import { afterAll, describe, expect, it } from "vitest";
import { binaryTuples, tupleField } from "../../src/db/copy-binary.ts";
import { ExportPool } from "../../src/tracing/otlp/export-pool.ts";
import { attributes, exportRequest, nanos, randomHex } from "./otlp-support.ts";

// The OTLP threads read a request's body where the main thread received it: handed over when the body owns its
// memory, copied when it shares it (a small Buffer lives in Node's shared pool, which must stay whole).

const pool = new ExportPool(1);
afterAll(() => pool.close());

const scope = { projectId: "00000000-0000-7000-8000-000000000001", userId: null };
const request = () => exportRequest([{
  traceId: randomHex(16), spanId: randomHex(8), name: "step", start: nanos(), end: nanos(5),
  attributes: attributes({ "ag.type.node": "task" }),
}]);
const rows = (chunks: Buffer[]) => chunks.flatMap((chunk) => [...binaryTuples(chunk)]);

describe("an OTLP thread's request body", () => {
  it("is handed over when it owns its memory, and read", async () => {
    const bytes = request();
    const body = Buffer.from(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    const { chunks, rejected } = await pool.read(body, true, 1 << 20, scope, undefined);
    expect(rejected).toBe(0);
    expect(rows(chunks)).toHaveLength(1);
    expect(body.byteLength).toBe(0);
  });

  it("is copied when it shares its memory, which stays as it was", async () => {
    const bytes = request();
    const body = Buffer.from(bytes); // a small copy: a slice of Node's buffer pool
    expect(body.buffer.byteLength).toBeGreaterThan(body.byteLength);
    const { chunks } = await pool.read(body, true, 1 << 20, scope, undefined);
    expect(rows(chunks)).toHaveLength(1);
    expect(body.equals(bytes)).toBe(true);
  });
});

describe("an OTLP thread's reading of a request", () => {
  // Columns of SPANS_COPY (src/tracing/spans.ts): span_name 7, attributes 15 (jsonb: a version byte, then text).
  const name = (tuple: Buffer) => tupleField(tuple, 7)!.toString("utf8");
  const promptTokens = (tuple: Buffer) =>
    JSON.parse(tupleField(tuple, 15)!.subarray(1).toString("utf8")).ag.metrics.tokens.cumulative?.prompt;
  const tokens = (prompt: number) => attributes({ "ag.metrics.unit.tokens.prompt": prompt });

  it("rolls each trace up whole when its spans come interleaved, the last of one id winning", async () => {
    const [a, b] = [randomHex(16), randomHex(16)];
    const [rootA, childA, rootB] = [randomHex(8), randomHex(8), randomHex(8)];
    const span = (traceId: string, spanId: string, parentSpanId: string | undefined, label: string, prompt: number) =>
      ({ traceId, spanId, parentSpanId, name: label, start: nanos(), end: nanos(5), attributes: tokens(prompt) });
    const body = exportRequest([
      span(a, rootA, undefined, "a-root", 1),
      span(b, rootB, undefined, "b-root", 1000),
      span(a, childA, rootA, "a-child-first", 10),
      span(b, randomHex(8), rootB, "b-child", 2000),
      span(a, childA, rootA, "a-child-again", 20),
    ]);
    const { chunks, rejected } = await pool.read(body, true, 1 << 20, scope, undefined);
    expect(rejected).toBe(0);
    const byName = new Map(rows(chunks).map((tuple) => [name(tuple), tuple]));
    expect([...byName.keys()].sort()).toEqual(["a-child-again", "a-root", "b-child", "b-root"]);
    expect(promptTokens(byName.get("a-root")!)).toBe(21);
    expect(promptTokens(byName.get("b-root")!)).toBe(3000);
  });
});
