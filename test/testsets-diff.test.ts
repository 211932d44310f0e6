import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestProject, type TestServer } from "./support/server.ts";

let server: TestServer;
let p: TestProject;

beforeAll(async () => {
  server = await startTestServer();
  p = await server.project();
});
afterAll(() => server.close());

const rows = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ data: { q: `${prefix}${i}`, a: `x${i}` } }));

describe("testset revision diff", () => {
  it("lists rows added, removed and changed (by dedup id) and columns", async () => {
    const ts = (await p.ok("POST", "/simple/testsets/", { testset: { slug: "diffed", data: { testcases: rows(5_000, "r") } } })).testset;
    const ids: string[] = ts.data.testcase_ids;
    const edited = (await p.ok("POST", "/testsets/revisions/commit", {
      testset_revision_commit: {
        testset_revision_id: ts.revision_id, testset_variant_id: ts.variant_id,
        delta: { rows: { remove: [ids[10], ids[4_000]], replace: [{ id: ids[2_500], data: { q: "r2500", a: "changed", extra: 1 } }], add: rows(3, "n") } },
      },
    })).testset_revision;
    const body = { base: { id: ts.revision_id }, target: { id: edited.id } };
    const { diff } = await p.ok("POST", "/testsets/revisions/diff", body);
    expect(diff.data.counts).toEqual({ base: 5_000, target: 5_001, added: 3, removed: 2, changed: 1 });
    expect(diff.data.testcases.removed.map((r: any) => r.id).sort()).toEqual([ids[10], ids[4_000]].sort());
    expect(diff.data.testcases.added.map((r: any) => r.data.q).sort()).toEqual(["n0", "n1", "n2"]);
    expect(diff.data.testcases.changed).toEqual([{
      id: ids[2_500], new_id: edited.data.testcase_ids[2_499], testcase_dedup_id: ts.data.testcases[2_500].data.testcase_dedup_id,
      fields: { a: { from: "x2500", to: "changed" }, extra: { from: null, to: 1 } },
    }]);
    expect(diff.data.columns).toEqual({ added: ["extra"], removed: [] });
    expect(diff.data.truncated).toBe(false);

    // Reversed: additions become removals; a column rename shows as one column added, one removed.
    const back = (await p.ok("POST", "/testsets/revisions/diff", { base: body.target, target: body.base })).diff.data;
    expect(back.counts).toMatchObject({ added: 2, removed: 3, changed: 1 });
    expect(back.columns).toEqual({ added: [], removed: ["extra"] });
    const renamed = (await p.ok("POST", "/testsets/revisions/commit", {
      testset_revision_commit: { testset_revision_id: edited.id, testset_variant_id: ts.variant_id, delta: { columns: { replace: { a: "answer" } } } },
    })).testset_revision;
    const cols = (await p.ok("POST", "/testsets/revisions/diff", { base: { id: edited.id }, target: { id: renamed.id } })).diff.data;
    expect(cols.columns).toEqual({ added: ["answer"], removed: ["a"] });
    expect(cols.counts.changed).toBe(5_001);
    expect(cols.testcases.changed).toHaveLength(1_000);
    expect(cols.truncated).toBe(true);

    // Same rows in the same order: nothing to list.
    const same = (await p.ok("POST", "/testsets/revisions/diff", { base: { id: ts.revision_id }, target: { id: ts.revision_id } })).diff.data;
    expect(same.counts).toMatchObject({ added: 0, removed: 0, changed: 0 });
  }, 120_000);

  it("a row moved or repeated elsewhere is neither added nor removed", async () => {
    const ts = (await p.ok("POST", "/simple/testsets/", { testset: { slug: "moved", data: { testcases: rows(3_000, "m") } } })).testset;
    const ids: string[] = ts.data.testcase_ids;
    // The repeated row sits in a chunk both revisions share: found through the chunk index.
    const moved = [ids[2_999], ...ids.slice(0, 2_999), ids[1_500]];
    const rev = (await p.ok("POST", "/testsets/revisions/commit", { testset_revision: { testset_variant_id: ts.variant_id, data: { testcase_ids: moved } } })).testset_revision;
    const d = (await p.ok("POST", "/testsets/revisions/diff", { base: { id: ts.revision_id }, target: { id: rev.id } })).diff.data;
    expect(d.counts).toMatchObject({ added: 0, removed: 0, changed: 0 });
    expect(d.columns).toEqual({ added: [], removed: [] });
  }, 60_000);
});
