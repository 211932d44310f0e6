import { describe, expect, it } from "vitest";
import { serverWithProject } from "./support/server.ts";

const { server, p } = await serverWithProject();

function upload(path: string, fields: Record<string, string>, name: string, content: string) {
  const boundary = "----tessera" + Math.random().toString(16).slice(2);
  const parts = Object.entries(fields)
    .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`);
  parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n` +
    `Content-Type: application/octet-stream\r\n\r\n${content}\r\n--${boundary}--\r\n`);
  return p.call("POST", path, parts.join(""), { "content-type": `multipart/form-data; boundary=${boundary}` });
}

const retrieve = async (id: string) => (await p.ok("POST", "/testsets/revisions/retrieve", {
  testset_revision_ref: { id }, include_testcases: false, include_testcase_ids: false,
})).testset_revision;

const download = async (id: string, fileType: string) => {
  const res = await p.call("POST", `/testsets/revisions/${id}/download?file_type=${fileType}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.body;
};

const commitDelta = async (testsetId: string, base: string, delta: unknown) => {
  const answer = await p.ok("POST", "/testsets/revisions/commit", {
    testset_revision_commit: { testset_id: testsetId, testset_revision_id: base, delta },
    include_testcases: false, include_testcase_ids: false,
  });
  return answer.testset_revision;
};

describe("a testset revision's column order", () => {
  it("keeps a CSV upload's header order, in the record, downloads and the next uploads", async () => {
    // 3,000 rows: the upload goes through the row threads and the spool, as a large file does.
    const rows = Array.from({ length: 3_000 }, (_, i) => `q${i},a${i},${i % 2 ? "x" : ""}`);
    const csv = `zeta,alpha,mid\n${rows.join("\n")}\n`;
    const fields = { file_type: "csv", testset_slug: "order-csv" };
    const created = await upload("/simple/testsets/upload", fields, "o.csv", csv);
    expect(created.statusCode, created.body).toBe(200);
    const ts = created.json().testset;
    const revision = await retrieve(ts.revision_id);
    expect(revision.columns).toEqual(["zeta", "alpha", "mid"]);
    // `data` keeps the reference's keys only: its clients refuse any other there.
    const ref = { testset_revision_ref: { id: ts.revision_id } };
    const retrieved = await p.ok("POST", "/testsets/revisions/retrieve", ref);
    const full = retrieved.testset_revision;
    const allowed = ["testcase_ids", "testcases", "testcase_count", "testcases_windowing"];
    expect(Object.keys(full.data).filter((key) => !allowed.includes(key))).toEqual([]);

    expect((await download(ts.revision_id, "csv")).split("\n")[0]).toBe("zeta,alpha,mid,testcase_dedup_id,__id__");
    const firstJson = JSON.parse(await download(ts.revision_id, "json"))[0];
    expect(Object.keys(firstJson)).toEqual(["zeta", "alpha", "mid", "testcase_dedup_id", "__id__"]);
    const firstLine = JSON.parse((await download(ts.revision_id, "jsonl")).split("\n")[0]);
    expect(Object.keys(firstLine).slice(0, 3)).toEqual(["zeta", "alpha", "mid"]);

    // A file in another order makes a revision in that order.
    const path = `/testsets/revisions/${ts.revision_id}/upload`;
    const again = await upload(path, { file_type: "csv" }, "o.csv", "mid,zeta\n1,2\n");
    expect(again.statusCode, again.body).toBe(200);
    expect((await retrieve(again.json().testset_revision.id)).columns).toEqual(["mid", "zeta"]);
  });

  it("keeps a JSON upload's key order of the first rows, then of later rows' new keys", async () => {
    const json = JSON.stringify([
      { question: "a", context: "b", answer: "c" }, { answer: "d", question: "e", zz_late: 1, context: "f" },
    ]);
    const fields = { file_type: "json", testset_slug: "order-json" };
    const created = await upload("/simple/testsets/upload", fields, "o.json", json);
    expect(created.statusCode, created.body).toBe(200);
    const ts = created.json().testset;
    expect((await retrieve(ts.revision_id)).columns).toEqual(["question", "context", "answer", "zz_late"]);
    // A commit of rows in the body keeps their order too.
    const body = (await p.ok("POST", "/simple/testsets/", {
      testset: { slug: "order-body", data: { testcases: [{ data: { b: 1, a: 2 } }, { data: { c: 3, a: 4 } }] } },
    })).testset;
    expect((await retrieve(body.revision_id)).columns).toEqual(["b", "a", "c"]);
  });

  it("keeps its order through delta commits: added last, renamed in place, removed gone", async () => {
    const ts = (await p.ok("POST", "/simple/testsets/", {
      testset: {
        slug: "order-delta",
        data: {
          testcases: [{ data: { zeta: "1", alpha: "2", mid: "3" } }, { data: { zeta: "4", alpha: "5", mid: "6" } }],
        },
      },
    })).testset;
    const added = await commitDelta(ts.id, ts.revision_id, { columns: { add: ["aaa"] } });
    expect(added.columns).toEqual(["zeta", "alpha", "mid", "aaa"]);
    const renamed = await commitDelta(ts.id, added.id, { columns: { replace: [["alpha", "beta"]] } });
    expect(renamed.columns).toEqual(["zeta", "beta", "mid", "aaa"]);
    const removed = await commitDelta(ts.id, renamed.id, { columns: { remove: ["mid"] } });
    expect(removed.columns).toEqual(["zeta", "beta", "aaa"]);
    // Row operations keep the order, and a new key of an added row goes last.
    const withRows = await commitDelta(ts.id, removed.id, {
      rows: { add: [{ data: { new_col: "x", aaa: "y", zeta: "z", beta: "w" } }] },
    });
    expect(withRows.columns).toEqual(["zeta", "beta", "aaa", "new_col"]);
    const page = await p.ok("POST", "/testcases/query", { testset_revision_ref: { id: withRows.id } });
    const edited = await commitDelta(ts.id, withRows.id, {
      rows: { replace: [{ id: page.testcases[0].id, data: { beta: "b", aaa: "a", zeta: "z", new_col: "n" } }] },
    });
    expect(edited.columns).toEqual(["zeta", "beta", "aaa", "new_col"]);
    expect((await download(edited.id, "csv")).split("\n")[0]).toBe("zeta,beta,aaa,new_col,testcase_dedup_id,__id__");
    // The log lists it too.
    const log = await p.ok("POST", "/testsets/revisions/log", { testset: { testset_variant_id: ts.variant_id } });
    const logged = log.testset_revisions.find((r: { id: string }) => r.id === edited.id);
    expect(logged.columns).toEqual(["zeta", "beta", "aaa", "new_col"]);
  });

  it("leaves revisions made of testcase ids without an order (their rows say their columns)", async () => {
    const ts = (await p.ok("POST", "/simple/testsets/", {
      testset: { slug: "order-ids", data: { testcases: [{ data: { b: 1, a: 2 } }] } },
    })).testset;
    const byIds = (await p.ok("POST", "/testsets/revisions/commit", {
      testset_revision: {
        testset_id: ts.id, testset_variant_id: ts.variant_id, data: { testcase_ids: ts.data.testcase_ids },
      },
    })).testset_revision;
    expect(byIds.columns).toBeUndefined();
    expect((await download(byIds.id, "csv")).split("\n")[0]).toBe("a,b,testcase_dedup_id,__id__");
  });
});
