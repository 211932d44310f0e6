import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHUNK_DIVISOR } from "../src/testsets/chunks.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const rows = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ data: { q: `${prefix}${i}` } }));

/** Chunk rows and bytes a 10-row delta adds to a testset of `size` rows (in a project of its own). */
async function deltaCost(size: number) {
  const p = await server.project();
  const ts = (await p.ok("POST", "/simple/testsets/", { testset: { slug: `t${size}`, data: { testcases: rows(size, "r") } } })).testset;
  const stored = async () => (await server.db.query<{ n: number; bytes: number }>(
    "SELECT count(*)::int AS n, coalesce(sum(length(ids)), 0)::int AS bytes FROM testcase_chunks WHERE project_id = $1", [p.id],
  ))[0];
  const before = await stored();
  const middle = ts.data.testcase_ids[Math.floor(size / 2)];
  const rev = (await p.ok("POST", "/testsets/revisions/commit", {
    testset_revision_commit: { testset_id: ts.id, testset_revision_id: ts.revision_id, data: null, delta: { rows: { add: rows(9, "new"), replace: [{ id: middle, data: { q: "edited" } }] } } },
  })).testset_revision;
  expect(rev.data.testcase_ids).toHaveLength(size + 9);
  const after = await stored();
  return { size, chunks: after.n - before.n, bytes: after.bytes - before.bytes, total: before.bytes };
}

describe("testset revision storage", () => {
  it("a 10-row delta costs about the same on 1,000 and 20,000 rows", async () => {
    const small = await deltaCost(1_000);
    const large = await deltaCost(20_000);
    expect(large.total).toBeGreaterThanOrEqual(20_000 * 16);
    // Only the chunks around the edit and at the end are new: a few chunks either way. Boundaries
    // depend on the (random) testset id, so chunk sizes vary run to run; the bound is a constant.
    expect(small.chunks).toBeLessThanOrEqual(6);
    expect(large.chunks).toBeLessThanOrEqual(6);
    expect(large.bytes).toBeLessThan(large.total / 4);
    expect(large.bytes).toBeLessThanOrEqual(6 * CHUNK_DIVISOR * 8 * 16);
  }, 60_000);
});
