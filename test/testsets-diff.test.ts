import { describe, expect, it } from "vitest";
import { serverWithProject } from "./support/server.ts";

const { server, p } = await serverWithProject();

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

  it("a moved row is neither added nor removed; each repeated copy counts (a multiset)", async () => {
    const ts = (await p.ok("POST", "/simple/testsets/", { testset: { slug: "moved", data: { testcases: rows(3_000, "m") } } })).testset;
    const ids: string[] = ts.data.testcase_ids;
    const commitIds = async (testcase_ids: string[]) => (await p.ok("POST", "/testsets/revisions/commit", {
      testset_revision: { testset_variant_id: ts.variant_id, data: { testcase_ids } },
    })).testset_revision;
    const diff = async (base: string, target: string) =>
      (await p.ok("POST", "/testsets/revisions/diff", { base: { id: base }, target: { id: target } })).diff.data;

    const moved = await commitIds([ids[2_999], ...ids.slice(0, 2_999)]);
    const d = await diff(ts.revision_id, moved.id);
    expect(d.counts).toMatchObject({ base: 3_000, target: 3_000, added: 0, removed: 0, changed: 0 });
    expect(d.columns).toEqual({ added: [], removed: [] });

    // The repeated row also sits in a chunk both revisions share: a second copy is still one row added.
    const repeated = await commitIds([...ids, ids[1_500], ids[1_500]]);
    const r = await diff(ts.revision_id, repeated.id);
    expect(r.counts).toMatchObject({ base: 3_000, target: 3_002, added: 2, removed: 0, changed: 0 });
    expect(r.testcases.added.map((t: any) => t.id)).toEqual([ids[1_500], ids[1_500]]);
    expect((await diff(repeated.id, ts.revision_id)).counts).toMatchObject({ added: 0, removed: 2, changed: 0 });
  }, 60_000);

  it("counts a row added a second time (3 → 4 rows, one of them twice)", async () => {
    const three = [{ data: { country: "France" } }, { data: { country: "Japan" } }, { data: { country: "Peru" } }];
    const ts = (await p.ok("POST", "/simple/testsets/", { testset: { slug: "capitals-twice", data: { testcases: three } } })).testset;
    const four = (await p.ok("POST", "/testsets/revisions/commit", {
      testset_revision_commit: { testset_id: ts.id, delta: { rows: { add: [{ data: { country: "Peru" } }] } } },
    })).testset_revision;
    expect(four.data.testcase_ids[3]).toBe(four.data.testcase_ids[2]);
    const d = (await p.ok("POST", "/testsets/revisions/diff", { base: { id: ts.revision_id }, target: { id: four.id } })).diff.data;
    expect(d.counts).toEqual({ base: 3, target: 4, added: 1, removed: 0, changed: 0 });
    expect(d.testcases.added).toEqual([{ id: four.data.testcase_ids[3], data: expect.objectContaining({ country: "Peru" }) }]);
  });
});
