import { describe, expect, it } from "vitest";
import { serverWithProject } from "./support/server.ts";

const { server, p } = await serverWithProject();

function upload(path: string, fields: Record<string, string>, name: string, content: string, accept?: string) {
  const boundary = "----tessera" + Math.random().toString(16).slice(2);
  const parts = Object.entries(fields)
    .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`);
  parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n` +
    `Content-Type: text/csv\r\n\r\n${content}\r\n--${boundary}--\r\n`);
  return p.call("POST", path, parts.join(""), {
    "content-type": `multipart/form-data; boundary=${boundary}`, ...(accept ? { accept } : {}),
  });
}

const linesOf = (body: string) => body.trim().split("\n").map((line) => JSON.parse(line));

describe("an upload's progress", () => {
  it("streams the storing of the rows, then the answer a plain request gets, when asked for lines", async () => {
    // 25,000 rows: more than one write batch on either driver.
    const rows = Array.from({ length: 25_000 }, (_, i) => `q${i},a${i}`);
    const csv = `question,answer\n${rows.join("\n")}\n`;
    const res = await upload("/simple/testsets/upload", { file_type: "csv", testset_slug: "progress" }, "p.csv", csv,
      "application/x-ndjson");
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers["content-type"]).toContain("application/x-ndjson");
    const lines = linesOf(res.body);
    expect(lines[0]).toEqual({ stage: "storing", rows: 25_000, stored: 0 });
    const stored = lines.filter((l) => l.stage === "storing").map((l) => l.stored);
    expect(stored.length).toBeGreaterThan(2);
    expect(stored).toEqual([...stored].sort((a, b) => a - b));
    expect(stored.at(-1)).toBe(25_000);
    expect(lines.at(-2)).toEqual({ stage: "committing", rows: 25_000 });
    const done = lines.at(-1);
    expect(done.stage).toBe("done");
    expect(done.answer.testset).toMatchObject({ slug: "progress" });
    expect(done.answer.testset.data.testcase_count).toBe(25_000);

    // The next revision, by the revision's own route: the same lines, and the revision as it answers it.
    const next = await upload(`/testsets/revisions/${done.answer.testset.revision_id}/upload`,
      { file_type: "csv", include_testcases: "false" }, "p.csv", "question,answer\nq,a\n", "application/x-ndjson");
    const last = linesOf(next.body).at(-1);
    expect(last.stage).toBe("done");
    expect(last.answer.testset_revision.columns).toEqual(["question", "answer"]);
  });

  it("answers a plain request as before, and a refused file with an ordinary 4xx either way", async () => {
    const fields = { file_type: "csv", testset_slug: "plain" };
    const plain = await upload("/simple/testsets/upload", fields, "p.csv", "a,b\n1,2\n");
    expect(plain.statusCode).toBe(200);
    expect(plain.headers["content-type"]).toContain("application/json");
    expect(plain.json().testset.slug).toBe("plain");
    const bad = await upload("/simple/testsets/upload", { file_type: "yaml", testset_slug: "bad" }, "p.yaml", "a: 1",
      "application/x-ndjson");
    expect(bad.statusCode).toBe(422);
    expect(JSON.stringify(bad.json().detail)).toContain("file_type");
  });
});
