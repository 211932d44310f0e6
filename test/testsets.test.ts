import { beforeAll, describe, expect, it } from "vitest";
import { serverWithProject } from "./support/server.ts";

const { server, p } = await serverWithProject();

const rows = (n: number, prefix = "q") => Array.from({ length: n }, (_, i) => ({ data: { question: `${prefix}${i}`, answer: `a${i}` } }));

describe("simple testsets", () => {
  let ts: any;
  it("creates with testcases and returns id, revision_id and testcase ids", async () => {
    const res = await p.ok("POST", "/simple/testsets/", { testset: { slug: "capitals", name: "Capitals", data: { testcases: [{ data: { country: "France", capital: "Paris" } }, { data: { country: "Peru", capital: "Lima" } }] } } });
    ts = res.testset;
    expect(ts.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(ts.revision_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(ts.data.testcase_ids).toHaveLength(2);
    expect(ts.data.testcases.map((t: any) => t.data.country)).toEqual(["France", "Peru"]);
    expect(ts.data.testcases[0].id).toBe(ts.data.testcase_ids[0]);
    expect(ts.data.testcases[0].data.testcase_dedup_id).toBeTruthy();
    expect(ts.data.testcases[0].testset_id).toBe(ts.id);
  });
  it("gets, queries, archives and unarchives", async () => {
    const got = (await p.ok("GET", `/simple/testsets/${ts.id}`)).testset;
    expect(got.revision_id).toBe(ts.revision_id);
    expect(got.data.testcases).toHaveLength(2);
    const q = await p.ok("POST", "/simple/testsets/query", { testset: { slug: "capitals" } });
    expect(q.testsets.map((t: any) => t.id)).toEqual([ts.id]);
    const archived = (await p.ok("POST", `/simple/testsets/${ts.id}/archive`)).testset;
    expect(archived.deleted_at).toBeTruthy();
    expect((await p.ok("POST", "/simple/testsets/query", {})).testsets.map((t: any) => t.id)).not.toContain(ts.id);
    expect((await p.ok("POST", `/simple/testsets/${ts.id}/unarchive`)).testset.deleted_at).toBeNull();
  });
  it("same content in the same testset → same id; identical rows stay two rows", async () => {
    const a = (await p.ok("POST", "/simple/testsets/", { testset: { slug: "dups", data: { testcases: [{ data: { x: 1 } }, { data: { x: 1 } }, { data: { x: 2 } }] } } })).testset;
    expect(a.data.testcase_ids).toHaveLength(3);
    expect(new Set(a.data.testcase_ids).size).toBe(3);
    const again = (await p.ok("PUT", `/simple/testsets/${a.id}`, { testset: { data: { testcases: [{ data: { x: 1 } }, { data: { x: 1 } }, { data: { x: 2 } }] } } })).testset;
    expect(again.data.testcase_ids).toEqual(a.data.testcase_ids);
    expect(again.revision_id).not.toBe(a.revision_id);
    const withDedup = (await p.ok("POST", "/simple/testsets/", { testset: { slug: "dedup-given", data: { testcases: [{ data: { x: 1, testcase_dedup_id: "row-1" } }] } } })).testset;
    expect(withDedup.data.testcases[0].data.testcase_dedup_id).toBe("row-1");
    const other = (await p.ok("POST", "/simple/testsets/", { testset: { slug: "dups-2", data: { testcases: [{ data: { x: 1 } }] } } })).testset;
    expect(other.data.testcase_ids[0]).not.toBe(a.data.testcase_ids[0]);
  });
});

describe("testset revisions", () => {
  let ts: any;
  let v1: any;
  beforeAll(async () => {
    ts = (await p.ok("POST", "/simple/testsets/", { testset: { slug: "revs", data: { testcases: rows(3) } } })).testset;
    v1 = (await p.ok("POST", "/testsets/revisions/retrieve", { testset_ref: { id: ts.id } })).testset_revision;
  });

  it("retrieve honours include_testcases / include_testcase_ids (both default true)", async () => {
    expect(v1.data.testcase_ids).toHaveLength(3);
    expect(v1.data.testcases).toHaveLength(3);
    const idsOnly = (await p.ok("POST", "/testsets/revisions/retrieve", { testset_revision_ref: { id: v1.id }, include_testcases: false })).testset_revision;
    expect(idsOnly.data).toEqual({ testcase_ids: v1.data.testcase_ids });
    const rowsOnly = (await p.ok("POST", "/testsets/revisions/retrieve", { testset_revision_ref: { id: v1.id }, include_testcase_ids: false })).testset_revision;
    expect(rowsOnly.data.testcase_ids).toBeUndefined();
    expect(rowsOnly.data.testcases).toHaveLength(3);
    const viaGet = (await p.ok("GET", `/testsets/revisions/${v1.id}?include_testcases=false`)).testset_revision;
    expect(viaGet.data.testcases).toBeUndefined();
    expect(viaGet.data.testcase_ids).toEqual(v1.data.testcase_ids);
  });

  it("answers a commit without inlined testcases unless asked (as the reference)", async () => {
    const own = (await p.ok("POST", "/simple/testsets/", { testset: { slug: "commit-answer", data: { testcases: rows(2) } } })).testset;
    const plain = (await p.ok("POST", "/testsets/revisions/commit", {
      testset_revision_commit: { testset_id: own.id, testset_variant_id: own.variant_id, delta: { rows: { add: [{ data: { question: "solo", answer: "s" } }] } } },
    })).testset_revision;
    expect(plain.data.testcases).toBeUndefined();
    expect(plain.data.testcase_ids.length).toBeGreaterThan(0);
    const bare = (await p.ok("POST", "/testsets/revisions/commit", {
      testset_revision_commit: { testset_id: own.id, testset_variant_id: own.variant_id, delta: { rows: { remove: plain.data.testcase_ids.slice(-1) } } },
      include_testcase_ids: false,
    })).testset_revision;
    expect(bare.data.testcase_ids).toBeUndefined();
  });

  it("commits full data and deltas; a pinned revision keeps its rows", async () => {
    const full = (await p.ok("POST", "/testsets/revisions/commit", {
      testset_revision_commit: { testset_id: ts.id, testset_variant_id: ts.variant_id, message: "full", data: { testcases: rows(2, "z") } },
      include_testcases: true,
    })).testset_revision;
    expect(full.version).toBe("2");
    expect(full.data.testcases.map((t: any) => t.data.question)).toEqual(["z0", "z1"]);

    const added = (await p.ok("POST", "/testsets/revisions/commit", {
      testset_revision_commit: { testset_id: ts.id, testset_revision_id: v1.id, message: "add", delta: { rows: { add: [{ data: { question: "new", answer: "x" } }] } } },
      include_testcases: true,
    })).testset_revision;
    expect(added.version).toBe("3");
    expect(added.data.testcase_ids.slice(0, 3)).toEqual(v1.data.testcase_ids);
    expect(added.data.testcases[3].data.question).toBe("new");

    const [first, second] = v1.data.testcase_ids;
    const edited = (await p.ok("POST", "/testsets/revisions/commit", {
      testset_revision: { testset_variant_id: ts.variant_id, delta: { rows: { remove: [first], replace: [{ id: second, data: { question: "q1!", answer: "a1" } }] } } },
      include_testcases: true,
    })).testset_revision;
    expect(edited.data.testcases.map((t: any) => t.data.question)).toEqual(["q1!", "q2", "new"]);
    expect(edited.data.testcase_ids[0]).not.toBe(second);
    expect(edited.data.testcases[0].data.testcase_dedup_id).toBe(v1.data.testcases[1].data.testcase_dedup_id);

    const renamed = (await p.ok("POST", "/testsets/revisions/commit", {
      testset_revision: { testset_variant_id: ts.variant_id, delta: { columns: { replace: [["question", "prompt"]], remove: ["answer"], add: ["notes"] } } },
      include_testcases: true,
    })).testset_revision;
    expect(renamed.data.testcases[0].data).toMatchObject({ prompt: "q1!", notes: null });
    expect(renamed.data.testcases[0].data.answer).toBeUndefined();
    const mapped = (await p.ok("POST", "/testsets/revisions/commit", {
      testset_revision: { testset_variant_id: ts.variant_id, delta: { columns: { replace: { prompt: "question" } } } },
      include_testcases: true,
    })).testset_revision;
    expect(mapped.data.testcases[0].data.question).toBe("q1!");

    // The pinned first revision and the old blobs never change.
    const pinned = (await p.ok("POST", "/testsets/revisions/retrieve", { testset_revision_ref: { id: v1.id } })).testset_revision;
    expect(pinned.data).toEqual(v1.data);
    expect((await p.ok("GET", `/testcases/${first}`)).testcase.data.question).toBe("q0");
  });

  it("commits testcase_ids of the testset, refuses foreign ones", async () => {
    const ids = [...v1.data.testcase_ids].reverse();
    const rev = (await p.ok("POST", "/testsets/revisions/commit", { testset_revision: { testset_variant_id: ts.variant_id, data: { testcase_ids: ids } } })).testset_revision;
    expect(rev.data.testcase_ids).toEqual(ids);
    const res = await p.call("POST", "/testsets/revisions/commit", { testset_revision: { testset_variant_id: ts.variant_id, data: { testcase_ids: ["00000000-0000-8000-8000-000000000000"] } } });
    expect(res.statusCode).toBe(422);
  });

  it("rejects data plus delta (400), unknown base (404), unknown replaced row (422)", async () => {
    const both = await p.call("POST", "/testsets/revisions/commit", { testset_revision: { testset_variant_id: ts.variant_id, data: { testcases: [] }, delta: { rows: { add: [] } } } });
    expect(both.statusCode).toBe(400);
    const base = await p.call("POST", "/testsets/revisions/commit", { testset_revision: { testset_variant_id: ts.variant_id, testset_revision_id: "0190a000-0000-7000-8000-000000000000", delta: { rows: { add: [] } } } });
    expect(base.statusCode).toBe(404);
    const replace = await p.call("POST", "/testsets/revisions/commit", { testset_revision: { testset_variant_id: ts.variant_id, delta: { rows: { replace: [{ id: "00000000-0000-8000-8000-000000000000", data: {} }] } } } });
    expect(replace.statusCode).toBe(422);
  });
});

describe("testcases", () => {
  it("fetches one, lists by testset with paging, queries by ids and by revision", async () => {
    const ts = (await p.ok("POST", "/simple/testsets/", { testset: { slug: "tc", data: { testcases: rows(5) } } })).testset;
    const ids: string[] = ts.data.testcase_ids;
    const one = await p.ok("GET", `/testcases/${ids[2]}`);
    expect(one).toMatchObject({ count: 1, testcase: { id: ids[2], testset_id: ts.id, data: { question: "q2" } } });
    expect((await p.call("GET", "/testcases/00000000-0000-8000-8000-000000000000")).statusCode).toBe(404);

    const page1 = await p.ok("GET", `/testcases/?testset_id=${ts.id}&limit=3`);
    expect(page1.count).toBe(3);
    const page2 = await p.ok("GET", `/testcases/?testset_id=${ts.id}&limit=3&next=${page1.windowing.next}`);
    expect(page2.count).toBe(2);
    expect(new Set([...page1.testcases, ...page2.testcases].map((t: any) => t.id))).toEqual(new Set(ids));

    const byIds = await p.ok("POST", "/testcases/query", { testcase_ids: [ids[0], ids[4]] });
    expect(byIds.testcases.map((t: any) => t.id).sort()).toEqual([ids[0], ids[4]].sort());
    const byRev = await p.ok("POST", "/testcases/query", { testset_revision_ref: { id: ts.revision_id }, windowing: { limit: 2 } });
    expect(byRev.testcases.map((t: any) => t.id)).toEqual(ids.slice(0, 2));
    const byRev2 = await p.ok("POST", "/testcases/query", { testset_ref: { id: ts.id }, windowing: { limit: 2, next: byRev.windowing.next } });
    expect(byRev2.testcases.map((t: any) => t.id)).toEqual(ids.slice(2, 4));

    const other = await server.project();
    expect((await other.call("GET", `/testcases/${ids[0]}`)).statusCode).toBe(404);
  });
});
