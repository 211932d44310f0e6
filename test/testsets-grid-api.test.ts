import { describe, expect, it } from "vitest";
import { serverWithProject } from "./support/server.ts";

const { server, p } = await serverWithProject();

const idsOf = (page: { testcases: { id: string }[] }) => page.testcases.map((t) => t.id);

describe("testcase pages by row offset", () => {
  it("starts a revision's page at any row, answers the row count, and refuses offsets it cannot place", async () => {
    const rows = Array.from({ length: 2_500 }, (_, i) => ({ data: { n: String(i) } }));
    const ts = (await p.ok("POST", "/simple/testsets/", { testset: { slug: "offsets", data: { testcases: rows } } })).testset;
    const ids: string[] = ts.data.testcase_ids;
    const ref = { testset_revision_ref: { id: ts.revision_id } };

    const middle = await p.ok("POST", "/testcases/query", { ...ref, windowing: { offset: 1_234, limit: 10 } });
    expect(idsOf(middle)).toEqual(ids.slice(1_234, 1_244));
    expect(middle.testcases[0].data.n).toBe("1234");
    expect(middle.testcase_count).toBe(2_500);
    // The next cursor continues right after the page.
    const after = await p.ok("POST", "/testcases/query", { ...ref, windowing: { next: middle.windowing.next, limit: 2 } });
    expect(idsOf(after)).toEqual(ids.slice(1_244, 1_246));

    const last = await p.ok("POST", "/testcases/query", { ...ref, windowing: { offset: 2_495, limit: 10 } });
    expect(idsOf(last)).toEqual(ids.slice(2_495));
    expect(last.windowing).toBeNull();
    const past = await p.ok("POST", "/testcases/query", { ...ref, windowing: { offset: 9_000 } });
    expect(past).toMatchObject({ count: 0, testcases: [], testcase_count: 2_500, windowing: null });
    // By the variant too.
    const byVariant = await p.ok("POST", "/testcases/query", { testset_variant_ref: { id: ts.variant_id }, windowing: { offset: 7, limit: 1 } });
    expect(idsOf(byVariant)).toEqual([ids[7]]);

    const negative = await p.call("POST", "/testcases/query", { ...ref, windowing: { offset: -1 } });
    expect(negative.statusCode).toBe(422);
    expect(JSON.stringify(negative.json().detail)).toContain("offset");
    const both = await p.call("POST", "/testcases/query", { ...ref, windowing: { offset: 3, next: middle.windowing.next } });
    expect(both.statusCode).toBe(400);
    expect(both.json().detail).toContain("cannot be used together");
    const unordered = await p.call("POST", "/testcases/query", { testset_id: ts.id, windowing: { offset: 3 } });
    expect(unordered.statusCode).toBe(400);
    expect(unordered.json().detail).toContain("needs a testset_ref");
    // Without a reference there is no revision, so no row count.
    const byTestset = await p.ok("POST", "/testcases/query", { testset_id: ts.id, windowing: { limit: 1 } });
    expect(byTestset.testcase_count).toBeUndefined();
  });
});

describe("testset deltas that change rows and columns at once", () => {
  it("names the base revision's rows, and applies column operations to edited and added rows", async () => {
    const ts = (await p.ok("POST", "/simple/testsets/", {
      testset: { slug: "mixed", data: { testcases: [{ data: { q: "a", old: "1" } }, { data: { q: "b", old: "2" } }, { data: { q: "c", old: "3" } }] } },
    })).testset;
    const [first, second] = ts.data.testcase_ids as string[];
    const rev = (await p.ok("POST", "/testsets/revisions/commit", {
      testset_revision_commit: {
        testset_id: ts.id, testset_revision_id: ts.revision_id, message: "Edit rows and columns",
        delta: {
          rows: { replace: [{ id: first, data: { q: "A", old: "1" } }], remove: [second], add: [{ data: { q: "d", old: "4" } }] },
          columns: { add: ["notes"], remove: ["old"] },
        },
      },
      include_testcases: true,
    })).testset_revision;
    expect(rev.message).toBe("Edit rows and columns");
    const cells = rev.data.testcases.map(({ data: { testcase_dedup_id, ...data } }: { data: Record<string, unknown> }) => data);
    expect(cells).toEqual([
      { q: "A", notes: null }, { q: "c", notes: null }, { q: "d", notes: null },
    ]);
    // A row id that is not in the base revision is still refused, and nothing is committed.
    const refused = await p.call("POST", "/testsets/revisions/commit", {
      testset_revision_commit: { testset_id: ts.id, testset_revision_id: rev.id, delta: { rows: { replace: [{ id: second, data: { q: "x" } }] }, columns: { add: ["y"] } } },
    });
    expect(refused.statusCode).toBe(422);
    expect(JSON.stringify(refused.json().detail)).toContain(second);
  });
});
