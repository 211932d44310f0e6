import { describe, expect, it } from "vitest";
import { parse } from "csv-parse/sync";
import { serverWithProject, startTestServer } from "./support/server.ts";

/**
 * Uploads, commits and downloads as a hostile (or careless) client sends them: every malformed file is
 * a 4xx naming the line or row, every oversized row or cell is refused while it is read, ids from
 * elsewhere are refused, hook addresses are checked when committed, and CSV downloads can be made
 * safe to open in a spreadsheet.
 */
const { server, p } = await serverWithProject();

function multipart(fields: Record<string, string>, file: { name: string; content: string }) {
  const boundary = "----tessera" + Math.random().toString(16).slice(2);
  const parts = Object.entries(fields).map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`);
  parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: application/octet-stream\r\n\r\n${file.content}\r\n--${boundary}--\r\n`);
  return { payload: parts.join(""), headers: { "content-type": `multipart/form-data; boundary=${boundary}` } };
}

const upload = (path: string, fields: Record<string, string>, name: string, content: string, project = p) => {
  const { payload, headers } = multipart(fields, { name, content });
  return project.call("POST", path, payload, headers);
};

const withEnv = async (env: Record<string, string>, work: () => Promise<void>) => {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    await work();
  } finally {
    for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
  }
};

const detailText = (body: { detail: unknown }) => (typeof body.detail === "string" ? body.detail : JSON.stringify(body.detail));

/** The three upload routes, each given a fresh target. */
async function uploadRoutes(): Promise<{ name: string; path: string }[]> {
  const ts = (await p.ok("POST", "/simple/testsets/", { testset: { slug: `target-${Math.random().toString(36).slice(2)}`, data: { testcases: [{ data: { a: "1" } }] } } })).testset;
  return [
    { name: "create", path: "/simple/testsets/upload" },
    { name: "simple edit", path: `/simple/testsets/${ts.id}/upload` },
    { name: "revision", path: `/testsets/revisions/${ts.revision_id}/upload` },
  ];
}

const testsetCount = async (project = p) => (await project.ok("POST", "/simple/testsets/query", {})).count as number;

describe("malformed CSV", () => {
  it("answers 422 naming the line for a quote inside an unquoted field, on every upload route", async () => {
    for (const route of await uploadRoutes()) {
      const res = await upload(route.path, { file_type: "csv" }, "q.csv", 'a,b\n1,2\n1"x,2\n');
      expect(res.statusCode, `${route.name}: ${res.body}`).toBe(422);
      expect(detailText(res.json()), route.name).toMatch(/line 3/);
      expect(detailText(res.json()), route.name).toMatch(/quote/i);
    }
  });

  it("answers 422 naming the line for an unclosed quote and for a row with more fields than the header", async () => {
    const unclosed = await upload("/simple/testsets/upload", { file_type: "csv" }, "u.csv", 'a,b\n1,2\n"open,2\n');
    expect(unclosed.statusCode, unclosed.body).toBe(422);
    expect(detailText(unclosed.json())).toMatch(/line \d+/);
    const wide = await upload("/simple/testsets/upload", { file_type: "csv" }, "w.csv", "a,b\n1,2\n1,2,3\n");
    expect(wide.statusCode, wide.body).toBe(422);
    expect(detailText(wide.json())).toMatch(/line 3/);
  });

  it("refuses a header that names a column twice, naming the column", async () => {
    const before = await testsetCount();
    const res = await upload("/simple/testsets/upload", { file_type: "csv" }, "dup.csv", "a,b,a\n1,2,3\n");
    expect(res.statusCode, res.body).toBe(422);
    expect(detailText(res.json())).toMatch(/Column \\?"a\\?" appears twice/);
    expect(await testsetCount()).toBe(before);
  });
});

describe("row and cell limits", () => {
  it("refuses a CSV cell over TESSERA_CELL_LIMIT with 413 naming the row and column, commits nothing, and keeps serving", async () => {
    const before = await testsetCount();
    await withEnv({ TESSERA_CELL_LIMIT: "1000" }, async () => {
      const csv = `q,a\nsmall,fine\n${"x".repeat(999)},ok\nbig,${"y".repeat(1001)}\n`;
      const res = await upload("/simple/testsets/upload", { file_type: "csv" }, "cell.csv", csv);
      expect(res.statusCode, res.body).toBe(413);
      expect(res.json().detail).toMatch(/Column "a" of the row at line 4/);
      expect(res.json().detail).toMatch(/TESSERA_CELL_LIMIT/);
      // Multi-byte text counts in UTF-8 bytes: 400 characters of 3 bytes each are 1,200 bytes.
      const wide = await upload("/simple/testsets/upload", { file_type: "csv" }, "wide.csv", `q\n${"€".repeat(400)}\n`);
      expect(wide.statusCode, wide.body).toBe(413);
    });
    expect(await testsetCount()).toBe(before);
    expect((await server.app.inject({ method: "GET", url: "/api/health" })).statusCode).toBe(200);
    expect((await upload("/simple/testsets/upload", { file_type: "csv" }, "after.csv", "q\nstill works\n")).statusCode).toBe(200);
  });

  it("refuses a CSV row over TESSERA_ROW_LIMIT with 413 naming the line while it is read, on every route", async () => {
    await withEnv({ TESSERA_ROW_LIMIT: "4000" }, async () => {
      for (const route of await uploadRoutes()) {
        // One unterminated quoted cell far past the limit: the parser stops at the limit.
        const csv = `a,b\n1,2\n3,"${"z".repeat(100_000)}`;
        const res = await upload(route.path, { file_type: "csv" }, "row.csv", csv);
        expect(res.statusCode, `${route.name}: ${res.body}`).toBe(413);
        expect(res.json().detail, route.name).toMatch(/row at line 3 .*TESSERA_ROW_LIMIT/);
      }
      const fine = await upload("/simple/testsets/upload", { file_type: "csv" }, "ok.csv", `a,b\n${"1".repeat(1500)},${"2".repeat(1500)}\n`);
      expect(fine.statusCode, fine.body).toBe(200);
    });
  });

  it("applies both limits to JSON arrays and JSON Lines", async () => {
    const before = await testsetCount();
    await withEnv({ TESSERA_CELL_LIMIT: "1000", TESSERA_ROW_LIMIT: "4000" }, async () => {
      const cell = JSON.stringify([{ q: "a" }, { q: "b", long: "w".repeat(1500) }]);
      const c = await upload("/simple/testsets/upload", { file_type: "json" }, "c.json", cell);
      expect(c.statusCode, c.body).toBe(413);
      expect(c.json().detail).toMatch(/Column "long" of the row at row 1 .*TESSERA_CELL_LIMIT/);
      const nested = JSON.stringify([{ q: "a", deep: { list: Array.from({ length: 300 }, (_, i) => i * 1000) } }]);
      expect((await upload("/simple/testsets/upload", { file_type: "json" }, "n.json", nested)).statusCode).toBe(413);

      const row = JSON.stringify([{ q: "a" }, { q: "b" }, { a: "1".repeat(900), b: "2".repeat(900), c: "3".repeat(900), d: "4".repeat(900), e: "5".repeat(900) }]);
      const r = await upload("/simple/testsets/upload", { file_type: "json" }, "r.json", row);
      expect(r.statusCode, r.body).toBe(413);
      expect(r.json().detail).toMatch(/row at row 2 .*TESSERA_ROW_LIMIT/);

      // A JSON Lines file whose second line never ends is refused once the line passes the limit.
      const lines = `{"q":"a"}\n{"q":"${"v".repeat(200_000)}`;
      const l = await upload("/simple/testsets/upload", { file_type: "json" }, "l.jsonl", lines);
      expect(l.statusCode, l.body).toBe(413);
      expect(l.json().detail).toMatch(/row at row 1 \(line 2\) .*TESSERA_ROW_LIMIT/);
      // An array element that never closes, likewise.
      const open = `[{"q":"a"},{"q":"${"v".repeat(200_000)}`;
      const o = await upload("/simple/testsets/upload", { file_type: "json" }, "o.json", open);
      expect(o.statusCode, o.body).toBe(413);
    });
    expect(await testsetCount()).toBe(before);
  });
});

describe("nesting in uploaded files", () => {
  const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;
  const deepList = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;

  it("refuses rows nested deeper than a body may be with 422 naming the row, in JSON arrays, JSON Lines and CSV metadata", async () => {
    const before = await testsetCount();
    for (const levels of [5_000, 100_000]) {
      const array = await upload("/simple/testsets/upload", { file_type: "json" }, "d.json", `[{"q":"a"},{"q":${deep(levels)}}]`);
      expect(array.statusCode, array.body.slice(0, 300)).toBe(422);
      expect(detailText(array.json())).toMatch(/row 1 .*nested deeper than 128 levels/);
      const lines = await upload("/simple/testsets/upload", { file_type: "json" }, "d.jsonl", `{"q":"a"}\n{"q":"b"}\n{"l":${deepList(levels)}}\n`);
      expect(lines.statusCode, lines.body.slice(0, 300)).toBe(422);
      expect(detailText(lines.json())).toMatch(/row 2 \(line 3\) .*nested deeper than 128 levels/);
      const meta = deep(levels).replaceAll('"', '""');
      const csv = await upload("/simple/testsets/upload", { file_type: "csv" }, "d.csv", `q,__meta__\na,\nb,"${meta}"\n`);
      expect(csv.statusCode, csv.body.slice(0, 300)).toBe(422);
      expect(detailText(csv.json())).toMatch(/__meta__ in line 3 .*nested deeper than 128 levels/);
    }
    expect(await testsetCount()).toBe(before);
  });

  it("keeps rows nested as deep as a body may be", async () => {
    const name = `nested-${Math.random().toString(36).slice(2)}.json`;
    const res = await upload("/simple/testsets/upload", { file_type: "json" }, name, `[{"q":${deep(120)}}]`);
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  });
});

describe("testcase ids from elsewhere", () => {
  it("refuses an __id__ that is not a testcase id, naming the row; a well-formed id of another testset gets a new id", async () => {
    const csv = `q,__id__\nfine,\nbad,not-a-uuid\n`;
    const res = await upload("/simple/testsets/upload", { file_type: "csv" }, "ids.csv", csv);
    expect(res.statusCode, res.body).toBe(422);
    expect(detailText(res.json())).toMatch(/__id__ \\?"not-a-uuid\\?" in line 3/);
    const json = await upload("/simple/testsets/upload", { file_type: "json" }, "ids.json", JSON.stringify([{ q: "a" }, { q: "b", __id__: 42 }]));
    expect(json.statusCode, json.body).toBe(422);
    expect(detailText(json.json())).toMatch(/__id__ 42 in row 1/);

    const copied = await upload("/simple/testsets/upload", { file_type: "csv" }, "copied.csv", "q,__id__\ncopied,0190f1c4-0000-7000-8000-000000000001\n");
    expect(copied.statusCode, copied.body).toBe(200);
    expect(copied.json().testset.data.testcase_ids[0]).not.toBe("0190f1c4-0000-7000-8000-000000000001");
  });

  it("refuses a delta that adds or replaces another project's testcase, or a commit of its ids, naming the id", async () => {
    const other = await server.project();
    const theirs = (await other.ok("POST", "/simple/testsets/", { testset: { slug: "theirs", data: { testcases: [{ data: { secret: "s3cr3t" } }] } } })).testset;
    const foreign = theirs.data.testcase_ids[0];
    const mine = (await p.ok("POST", "/simple/testsets/", { testset: { slug: "mine", data: { testcases: [{ data: { q: "1" } }, { data: { q: "2" } }] } } })).testset;
    const commit = (delta: unknown) => p.call("POST", "/testsets/revisions/commit", { testset_revision_commit: { testset_id: mine.id, delta } });

    for (const delta of [{ rows: { add: [{ id: foreign }] } }, { rows: { add: [{ id: foreign, data: { q: "3" } }] } }, { rows: { replace: [{ id: foreign, data: { q: "x" } }] } }]) {
      const res = await commit(delta);
      expect(res.statusCode, res.body).toBe(422);
      expect(detailText(res.json())).toContain(foreign);
    }
    const ids = await p.call("POST", "/testsets/revisions/commit", { testset_revision_commit: { testset_id: mine.id, data: { testcase_ids: [foreign] } } });
    expect(ids.statusCode, ids.body).toBe(422);
    expect(detailText(ids.json())).toContain(foreign);
    expect((await p.ok("GET", `/simple/testsets/${mine.id}`)).testset.revision_id).toBe(mine.revision_id);

    // An id of this testset, sent without data, adds that testcase as it is.
    const again = await commit({ rows: { add: [{ id: mine.data.testcase_ids[0] }] } });
    expect(again.statusCode, again.body).toBe(200);
    const latest = (await p.ok("GET", `/simple/testsets/${mine.id}`)).testset;
    expect(latest.data.testcase_ids).toEqual([...mine.data.testcase_ids, mine.data.testcase_ids[0]]);
    expect(latest.data.testcases[2].data.q).toBe("1");
  });
});

describe("hook addresses", () => {
  const hook = (url: string) => ({ uri: "svc:custom:hook:v0", url });

  it("refuses at commit a hook URL that is not https or names a private address", async () => {
    const refused = [
      "http://hooks.example.com", "ftp://hooks.example.com", "file:///etc/passwd", "https://127.0.0.1:8080", "https://10.1.2.3",
      "https://169.254.169.254/latest", "https://[::1]", "https://[::ffff:192.168.0.1]", "https://localhost:3000", "https://api.localhost", "not a url",
    ];
    for (const url of refused) {
      const created = await p.call("POST", "/simple/applications/", { application: { slug: `h-${Math.random().toString(36).slice(2)}`, data: hook(url) } });
      expect(created.statusCode, `${url}: ${created.body}`).toBe(422);
      expect(detailText(created.json())).toMatch(/url/);
    }
    const app = (await p.ok("POST", "/simple/applications/", { application: { slug: "public-hook", data: hook("https://hooks.example.com/v1") } })).application;
    const commit = await p.call("POST", "/applications/revisions/commit", {
      application_revision_commit: { application_id: app.id, data: hook("https://192.168.1.10") },
    });
    expect(commit.statusCode, commit.body).toBe(422);
    expect(detailText(commit.json())).toMatch(/TESSERA_ALLOW_PRIVATE_HOOKS/);
    const edit = await p.call("PUT", `/simple/applications/${app.id}`, { application: { data: hook("http://hooks.example.com") } });
    expect(edit.statusCode, edit.body).toBe(422);
    expect((await p.ok("GET", `/simple/applications/${app.id}`)).application.revision_id).toBe(app.revision_id);
  });

  it("accepts private and http hooks when TESSERA_ALLOW_PRIVATE_HOOKS=true", async () => {
    const open = await startTestServer({ TESSERA_ALLOW_PRIVATE_HOOKS: "true" });
    try {
      const q = await open.project();
      for (const url of ["http://127.0.0.1:9000", "http://localhost:3000", "https://10.1.2.3"]) {
        const res = await q.call("POST", "/simple/applications/", { application: { slug: `h-${Math.random().toString(36).slice(2)}`, data: hook(url) } });
        expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
      }
      const bad = await q.call("POST", "/simple/applications/", { application: { slug: "ftp", data: hook("ftp://10.1.2.3") } });
      expect(bad.statusCode).toBe(422);
    } finally {
      await open.close();
    }
  });
});

describe("CSV downloads for spreadsheets", () => {
  it("prefixes formula-looking cells and column names with a quote when escape_formulas=true, and only then", async () => {
    const rows = [
      { text: "=HYPERLINK(\"http://evil\",\"x\")", n: 1 },
      { text: "+1+2", n: -5 },
      { text: "-2+3", n: 2 },
      { text: "@SUM(A1)", n: 3 },
      { text: "\t=1", n: 4 },
      { text: "\r=1", n: 5 },
      { text: "plain = text", n: 6 },
    ];
    const created = await upload("/simple/testsets/upload", { file_type: "json", testset_slug: "formulas" }, "f.json",
      JSON.stringify(rows.map((r) => ({ ...r, "=cmd": "ok" }))));
    expect(created.statusCode, created.body).toBe(200);
    const ts = created.json().testset;
    const download = async (query: string, path = `/simple/testsets/${ts.id}/download`) => {
      const res = await p.call("POST", `${path}?file_type=csv${query}`);
      expect(res.statusCode, res.body).toBe(200);
      return parse(res.body, { columns: true }) as Record<string, string>[];
    };
    const verbatim = await download("");
    expect(verbatim.map((r) => r.text)).toEqual(rows.map((r) => r.text));
    expect(verbatim[0]["=cmd"]).toBe("ok");

    for (const escaped of [await download("&escape_formulas=true"), await download("&escape_formulas=true", `/testsets/revisions/${ts.revision_id}/download`)]) {
      expect(escaped.map((r) => r.text)).toEqual([
        "'=HYPERLINK(\"http://evil\",\"x\")", "'+1+2", "'-2+3", "'@SUM(A1)", "'\t=1", "'\r=1", "plain = text",
      ]);
      expect(escaped.map((r) => r.n)).toEqual(["1", "-5", "2", "3", "4", "5", "6"]);
      expect(escaped[0]["'=cmd"]).toBe("ok");
    }
    expect((await download("&escape_formulas=false")).map((r) => r.text)).toEqual(rows.map((r) => r.text));
  });
});
