import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestProject, type TestServer } from "./support/server.ts";

let server: TestServer;
let p: TestProject;

beforeAll(async () => {
  server = await startTestServer();
  p = await server.project();
});
afterAll(() => server.close());

function multipart(fields: Record<string, string>, file: { name: string; content: string }) {
  const boundary = "----tessera" + Math.random().toString(16).slice(2);
  const parts = Object.entries(fields).map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`);
  parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: application/octet-stream\r\n\r\n${file.content}\r\n--${boundary}--\r\n`);
  return { payload: parts.join(""), headers: { "content-type": `multipart/form-data; boundary=${boundary}` } };
}

const upload = (path: string, fields: Record<string, string>, name: string, content: string) => {
  const { payload, headers } = multipart(fields, { name, content });
  return p.call("POST", path, payload, headers);
};

describe("testset files", () => {
  it("creates from CSV, downloads CSV, re-uploads with the same ids", async () => {
    const csv = 'question,answer,__tags__,__dedup_id__\n"Capital of France?",Paris,"{""topic"":""geo""}",r1\nCapital of Peru?,Lima,,\nCapital of Peru?,Lima,,\n';
    const res = await upload("/simple/testsets/upload", { file_type: "csv", testset_name: "Geo" }, "geo.csv", csv);
    expect(res.statusCode, res.body).toBe(200);
    const ts = res.json().testset;
    expect(ts.name).toBe("Geo");
    expect(ts.data.testcases).toHaveLength(3);
    expect(ts.data.testcases[0]).toMatchObject({ data: { question: "Capital of France?", answer: "Paris", testcase_dedup_id: "r1" }, tags: { topic: "geo" } });
    expect(ts.data.testcases[1].id).not.toBe(ts.data.testcases[2].id);

    const down = await p.call("POST", `/simple/testsets/${ts.id}/download?file_type=csv&file_name=geo-export.csv`);
    expect(down.statusCode).toBe(200);
    expect(down.headers["content-type"]).toContain("text/csv");
    expect(down.headers["content-disposition"]).toContain("geo-export.csv");
    const header = down.body.split("\n")[0];
    expect(header).toContain("__tags__");
    expect(header).not.toContain("__flags__");
    expect(header).not.toContain("__meta__");

    const again = await upload(`/simple/testsets/${ts.id}/upload`, {}, "geo.csv", down.body);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().testset.data.testcase_ids).toEqual(ts.data.testcase_ids);
    expect(again.json().testset.revision_id).not.toBe(ts.revision_id);
  });

  it("JSON array and JSON Lines round trip through revision upload/download", async () => {
    const json = JSON.stringify([{ q: "a", n: 1, nested: { k: [1, 2] } }, { q: "b", n: 2, __meta__: { src: "x" } }]);
    const created = await upload("/simple/testsets/upload", { file_type: "json", testset_slug: "js" }, "rows.json", json);
    expect(created.statusCode, created.body).toBe(200);
    const ts = created.json().testset;
    expect(ts.slug).toBe("js");
    expect(ts.data.testcases[0].data).toMatchObject({ q: "a", n: 1, nested: { k: [1, 2] } });
    expect(ts.data.testcases[1].meta).toEqual({ src: "x" });

    const down = await p.call("POST", `/testsets/revisions/${ts.revision_id}/download?file_type=json`);
    expect(down.statusCode).toBe(200);
    const exported = down.json();
    expect(exported[0].__flags__).toBeUndefined();
    const rev = await upload(`/testsets/revisions/${ts.revision_id}/upload`, { file_type: "json" }, "rows.json", down.body);
    expect(rev.statusCode, rev.body).toBe(200);
    expect(rev.json().testset_revision.version).toBe("2");
    expect(rev.json().testset_revision.data.testcase_ids).toEqual(ts.data.testcase_ids);

    const lines = exported.map((r: unknown) => JSON.stringify(r)).join("\n");
    const fromLines = await upload(`/testsets/revisions/${ts.revision_id}/upload`, {}, "rows.jsonl", lines);
    expect(fromLines.statusCode, fromLines.body).toBe(200);
    expect(fromLines.json().testset_revision.data.testcase_ids).toEqual(ts.data.testcase_ids);
  });

  it("rejects bad input with 422 and commits nothing", async () => {
    const ts = (await p.ok("POST", "/simple/testsets/", { testset: { slug: "bad", data: { testcases: [{ data: { a: "1" } }] } } })).testset;
    const cases: [Record<string, string>, string, string, RegExp][] = [
      [{ file_type: "csv" }, "x.csv", "a,b\n1,2\n3,4,5\n", /line 3/],
      [{ file_type: "csv" }, "x.csv", 'a,b\n1,"2\n', /line/],
      [{ file_type: "json" }, "x.json", '[{"a":1}, 2]', /Row 1/],
      [{ file_type: "json" }, "x.json", '[{"a":1}, {"a":', /not closed|Malformed/],
      [{ file_type: "json" }, "x.jsonl", '{"a":1}\n[1]\n', /Row 1/],
      [{ file_type: "xml" }, "x.xml", "<a/>", /csv/],
    ];
    for (const [fields, name, content, pattern] of cases) {
      const res = await upload(`/simple/testsets/${ts.id}/upload`, fields, name, content);
      expect(res.statusCode, `${content} → ${res.body}`).toBe(422);
      expect(JSON.stringify(res.json().detail)).toMatch(pattern);
    }
    expect((await p.call("POST", `/testsets/revisions/${ts.revision_id}/download?file_type=xml`)).statusCode).toBe(422);
    const after = (await p.ok("GET", `/simple/testsets/${ts.id}`)).testset;
    expect(after.revision_id).toBe(ts.revision_id);
    const log = await p.ok("POST", "/testsets/revisions/log", { testset: { testset_id: ts.id } });
    expect(log.count).toBe(1);
  });
});
