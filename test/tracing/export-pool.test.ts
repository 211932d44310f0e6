import { afterAll, describe, expect, it } from "vitest";
import { binaryTuples } from "../../src/db/copy-binary.ts";
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
