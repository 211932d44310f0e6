import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processTarget, type ProcessTarget } from "../support/process-target.ts";
import { startServerProcess, type ServerProcess } from "../support/process.ts";
import { attributes, exportRequest, nanos, randomHex, type TestSpan } from "./otlp-support.ts";

let target: ProcessTarget;
let server: ServerProcess | null = null;

beforeAll(async () => {
  target = await processTarget();
});
afterAll(async () => {
  await server?.stop("SIGKILL");
  await target.dispose();
});

const REQUESTS = 30;
const TRACES_PER_REQUEST = 100;
const SPANS_PER_TRACE = 10;

/** A request of 100 traces of a root and nine children, each span carrying about 1 KB of inputs. */
function request(n: number): { body: Buffer; traceIds: string[] } {
  const spans: TestSpan[] = [];
  const traceIds: string[] = [];
  for (let t = 0; t < TRACES_PER_REQUEST; t++) {
    const traceId = randomHex(16);
    const rootId = randomHex(8);
    traceIds.push(traceId);
    for (let s = 0; s < SPANS_PER_TRACE; s++) {
      spans.push({
        traceId, spanId: s === 0 ? rootId : randomHex(8), ...(s === 0 ? {} : { parentSpanId: rootId }),
        name: s === 0 ? "pipeline" : `step-${s}`, start: nanos(-1000), end: nanos(),
        attributes: attributes({
          "ag.type.node": s === 0 ? "workflow" : "task",
          "ag.data.inputs.question": `request ${n}, trace ${t}, span ${s}: ${"lorem ipsum ".repeat(80)}`,
        }),
      });
    }
  }
  return { body: exportRequest(spans), traceIds };
}

describe("OTLP ingestion and a killed server", () => {
  it("keeps every span it acknowledged when killed right after its last answer", { timeout: 240_000 }, async () => {
    server = await startServerProcess(target.env);
    const key = readFileSync(join(target.dir, "api-key"), "utf8").trim();
    const sent: string[] = [];
    // About 30,000 spans of 1 KB and more: on the embedded database, enough write-ahead log to start several new files.
    for (let n = 0; n < REQUESTS; n++) {
      const { body, traceIds } = request(n);
      const res = await fetch(`${server.url}/api/otlp/v1/traces`, {
        method: "POST", body: new Uint8Array(body),
        headers: { authorization: `ApiKey ${key}`, "content-type": "application/x-protobuf" },
      });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      sent.push(...traceIds);
    }
    await server.stop("SIGKILL");
    server = null;
    if (!process.env.DATABASE_URL) {
      const logFiles = readdirSync(join(target.dir, "db", "pg_wal")).filter((name) => /^[0-9A-F]{24}$/.test(name));
      expect(logFiles.length).toBeGreaterThan(2);
    }

    // Read straight from the database: PGlite recovers from its log as it opens; PostgreSQL never went away.
    const stored = await target.use((db) => db.query<{ trace_id: string; spans: number }>(
      "SELECT replace(trace_id::text, '-', '') AS trace_id, count(*)::int AS spans FROM spans GROUP BY trace_id",
    ));
    expect(stored.length).toBe(REQUESTS * TRACES_PER_REQUEST);
    const byTrace = new Map(stored.map((row) => [row.trace_id, row.spans]));
    expect(sent.filter((id) => byTrace.get(id) !== SPANS_PER_TRACE)).toEqual([]);
  });
});
