import { describe, expect, it } from "vitest";
import { BinaryRows, binaryTuples, tupleField } from "../../src/db/copy-binary.ts";
import { TraceWriter, writeTrace } from "../../src/traces/trace-writer.ts";
import { serverWithProject } from "../support/server.ts";

/**
 * The trace writer keeps writes off the invocations' way: while traces keep arriving it writes none (on the
 * embedded database a write holds the server's one thread), then writes the batch once they stop, or once the
 * first has waited its longest; a read still sees every trace at once.
 */
const { server, p } = await serverWithProject();

/** The rows of a COPY's data: here a trace's, each trace being a root span alone. */
const rows = (data: Buffer[]) => [...binaryTuples(Buffer.concat(data))].length;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const trace = (n: number) => ({
  traceId: crypto.randomUUID().replace(/-/g, ""), spanId: "0".repeat(16), references: null, inputs: { n },
  outputs: null, status: { code: 200 }, latencyMs: 1, usage: null, spans: [],
});
const stored = async (traceIds: string[]) => {
  const rows = await server.db.query<{ n: number }>(
    "SELECT count(DISTINCT trace_id)::int AS n FROM spans WHERE project_id = $1 AND trace_id = ANY($2::uuid[])",
    [p.id, traceIds],
  );
  return rows[0].n;
};

describe("trace writer", () => {
  it("writes nothing while traces keep arriving, then the whole batch once they stop", async () => {
    const options = { intervalMs: 100, maxBatch: 500, maxDelayMs: 5_000 };
    const writer = new TraceWriter(server.db, (error) => { throw error; }, options);
    const scope = { projectId: p.id, userId: null };
    const ids: string[] = [];
    const started = performance.now();
    while (performance.now() - started < 600) {
      const t = trace(ids.length);
      ids.push(t.traceId);
      writer.add(scope, t);
      await sleep(20);
    }
    // Every 20 ms for 0.6 s: six times the quiet interval, and nothing written yet.
    expect(await stored(ids)).toBe(0);
    await expect.poll(() => stored(ids), { timeout: 5_000, interval: 50 }).toBe(ids.length);
  });

  it("writes a batch whose first trace has waited its longest, though traces keep arriving", async () => {
    const options = { intervalMs: 100, maxBatch: 500, maxDelayMs: 300 };
    const writer = new TraceWriter(server.db, (error) => { throw error; }, options);
    const scope = { projectId: p.id, userId: null };
    const first = trace(0);
    writer.add(scope, first);
    const started = performance.now();
    while (performance.now() - started < 800 && (await stored([first.traceId])) === 0) {
      writer.add(scope, trace(1));
      await sleep(20);
    }
    expect(await stored([first.traceId])).toBe(1);
    await writer.flush();
  });

  it("writes a full batch after the turn that filled it, not in the awaiting caller's turn", async () => {
    const copies: number[] = [];
    const db = { copyFrom: (sql: string, data: Buffer[]) => {
      copies.push(rows(data));
      return server.db.copyFrom(sql, data);
    } };
    const writer = new TraceWriter(db, (error) => { throw error; }, { intervalMs: 10_000, maxBatch: 2 });
    const scope = { projectId: p.id, userId: null };
    const batch = [trace(1), trace(2)];
    for (const t of batch) await writer.add(scope, t);
    await Promise.resolve();
    expect(copies).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(copies).toEqual([2]);
    await writer.flush();
    expect(await stored(batch.map((t) => t.traceId))).toBe(2);
  });

  it("writes a large batch on the embedded database in short pieces, with other work let in between", async () => {
    const copies: number[] = [];
    let turns = 0;
    const turnsAtCopy: number[] = [];
    const db = { driver: "pglite" as const, copyFrom: (sql: string, data: Buffer[]) => {
      copies.push(rows(data));
      turnsAtCopy.push(turns);
      return server.db.copyFrom(sql, data);
    } };
    const writer = new TraceWriter(db, (error) => { throw error; }, { intervalMs: 10_000, maxBatch: 10_000 });
    const scope = { projectId: p.id, userId: null };
    const batch = Array.from({ length: 300 }, (_, n) => trace(n));
    for (const t of batch) writer.add(scope, t);
    // Work that wants the event loop while the batch is written: it gets a turn between every two pieces.
    let writing = true;
    const other = () => {
      turns++;
      if (writing) setImmediate(other);
    };
    setImmediate(other);
    await writer.flush();
    writing = false;
    expect(copies.length).toBeGreaterThan(2);
    expect(copies.reduce((a, b) => a + b)).toBe(300);
    for (let i = 1; i < turnsAtCopy.length; i++) expect(turnsAtCopy[i]).toBeGreaterThan(turnsAtCopy[i - 1]);
    expect(await stored(batch.map((t) => t.traceId))).toBe(300);
  });

  it("writes each piece of invocations' traces at a moment with no request in flight, an evaluation's rows at once",
    async () => {
      // Each COPY as what it held: an evaluation's rows (their trace ids begin with e's) or invocations' traces.
      const events: string[] = [];
      const db = { driver: "pglite" as const, copyFrom: (sql: string, data: Buffer[]) => {
        const first = tupleField(binaryTuples(Buffer.concat(data)).next().value!, 1)!.toString("hex");
        events.push(`${first.startsWith("eeee") ? "rows" : "traces"} ${rows(data)}`);
        return server.db.copyFrom(sql, data);
      } };
      const quiet = async (ms: number) => {
        events.push(`quiet ${ms}`);
      };
      const writer = new TraceWriter(db, (error) => { throw error; }, { intervalMs: 10_000, maxBatch: 10_000, quiet });
      const scope = { projectId: p.id, userId: null };
      const invoked = Array.from({ length: 100 }, (_, n) => trace(n));
      for (const t of invoked) writer.add(scope, t);
      const block = new BinaryRows();
      const evaluated = Array.from({ length: 5 }, (_, n) => trace(n));
      for (const t of evaluated) t.traceId = `eeee${t.traceId.slice(4)}`;
      for (const t of evaluated) writeTrace(block, scope, t);
      writer.addRows(block.take(), evaluated.length);
      await writer.flush();
      // Every piece of the invocations' traces came after a wait for quiet, of 2 ms at the most; the rows did not wait.
      const pieces = events.indexOf("rows 5");
      expect(pieces).toBeGreaterThan(1);
      expect(events.slice(0, pieces)).toEqual(events.slice(0, pieces).map((e, i) => (i % 2 ? e : "quiet 2")));
      expect(events.slice(pieces)).toEqual(["rows 5"]);
      const traces = events.filter((e) => e.startsWith("traces ")).map((e) => Number(e.slice("traces ".length)));
      expect(traces.reduce((a, b) => a + b)).toBe(100);
      expect(await stored([...invoked, ...evaluated].map((t) => t.traceId))).toBe(105);
    });

  it("writes what waits when asked (a read of traces flushes first)", async () => {
    const writer = new TraceWriter(server.db, (error) => { throw error; }, { intervalMs: 10_000 });
    const t = trace(7);
    writer.add({ projectId: p.id, userId: null }, t);
    await writer.flush();
    expect(await stored([t.traceId])).toBe(1);
  });
});
