import { describe, expect, it } from "vitest";
import { serverWithProject } from "./support/server.ts";

const { server, p } = await serverWithProject();

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

  it("names a CSV download's columns whether the revision counts its columns or not", async () => {
    const csv = 'question,answer,category,__meta__\nCapital of France?,Paris,geo,"{""src"":""atlas""}"\nCapital of Peru?,Lima,geo,\n';
    const created = await upload("/simple/testsets/upload", { file_type: "csv", testset_slug: "cols" }, "cols.csv", csv);
    expect(created.statusCode, created.body).toBe(200);
    const ts = created.json().testset;
    // A revision made of existing testcase ids does not count its columns: its CSV reads them off the rows.
    const byIds = await p.ok("POST", "/testsets/revisions/commit", {
      testset_revision: { testset_id: ts.id, testset_variant_id: ts.variant_id, data: { testcase_ids: [...ts.data.testcase_ids].reverse() } },
    });
    const stored = async (id: string) => (await server.db.query<{ data: { columns?: unknown } }>("SELECT data FROM revisions WHERE id = $1", [id]))[0].data;
    expect((await stored(ts.revision_id)).columns).toEqual({ answer: 2, category: 2, question: 2 });
    expect((await stored(byIds.testset_revision.id)).columns).toBeUndefined();
    const header = async (revisionId: string) => {
      const down = await p.call("POST", `/testsets/revisions/${revisionId}/download?file_type=csv`);
      expect(down.statusCode, down.body).toBe(200);
      return down.body.split("\n")[0];
    };
    // The uploaded revision keeps the file's column order; one made of ids reads its rows' (jsonb's) order.
    expect(await header(ts.revision_id)).toBe("question,answer,category,testcase_dedup_id,__id__,__meta__");
    expect(await header(byIds.testset_revision.id)).toBe("answer,category,question,testcase_dedup_id,__id__,__meta__");
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

  it("takes file_type=jsonl (JSON Lines) on upload and gives it on download", async () => {
    const lines = '{"country":"France","capital":"Paris"}\n{"country":"Japan","capital":"Tokyo"}\n';
    const created = await upload("/simple/testsets/upload", { file_type: "jsonl", testset_slug: "lines" }, "rows.txt", lines);
    expect(created.statusCode, created.body).toBe(200);
    const ts = created.json().testset;
    expect(ts.data.testcases.map((t: any) => t.data.country)).toEqual(["France", "Japan"]);

    const down = await p.call("POST", `/simple/testsets/${ts.id}/download?file_type=jsonl`);
    expect(down.statusCode).toBe(200);
    expect(down.headers["content-type"]).toBe("application/jsonl; charset=utf-8");
    expect(down.headers["content-disposition"]).toBe("attachment; filename=\"lines-v1.jsonl\"; filename*=UTF-8''lines-v1.jsonl");
    const rows = down.body.trimEnd().split("\n").map((l: string) => JSON.parse(l));
    expect(rows.map((r: any) => [r.country, r.__id__])).toEqual(ts.data.testcases.map((t: any) => [t.data.country, t.id]));

    const bad = await upload("/simple/testsets/upload", { file_type: "yaml", testset_slug: "nope" }, "rows.yaml", "a: 1");
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail[0]).toMatchObject({ loc: ["body", "file_type"], msg: expect.stringContaining('"jsonl"') });
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
    // The empty version 0 the create seeded, and the created rows: nothing more.
    expect(log.count).toBe(2);
  });
});

describe("testset files at scale", () => {
  const withEnv = async (env: Record<string, string>, work: () => Promise<void>) => {
    const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
    Object.assign(process.env, env);
    try {
      await work();
    } finally {
      for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
    }
  };

  it("refuses a file over TESSERA_UPLOAD_LIMIT with 413 and commits nothing", async () => {
    const ts = (await p.ok("POST", "/simple/testsets/", { testset: { slug: "limited", data: { testcases: [{ data: { a: "1" } }] } } })).testset;
    const csv = "a,b\n" + Array.from({ length: 2_000 }, (_, i) => `${i},${"x".repeat(20)}`).join("\n") + "\n";
    await withEnv({ TESSERA_UPLOAD_LIMIT: "10000" }, async () => {
      const res = await upload(`/simple/testsets/${ts.id}/upload`, { file_type: "csv" }, "big.csv", csv);
      expect(res.statusCode, res.body).toBe(413);
      expect(res.json().detail).toMatch(/TESSERA_UPLOAD_LIMIT/);
    });
    expect((await p.ok("GET", `/simple/testsets/${ts.id}`)).testset.revision_id).toBe(ts.revision_id);
  });

  it("re-uploading a large file, and a file whose rows repeat, stores every row once and keeps its ids", async () => {
    // 3,000 rows: bulk loaded (a COPY per batch); the re-upload finds them stored and writes nothing new.
    const rows = Array.from({ length: 3_000 }, (_, i) => `q${i},a${i}`);
    const first = await upload("/simple/testsets/upload", { file_type: "csv", testset_slug: "reload" }, "r.csv", `question,answer\n${rows.join("\n")}\n`);
    expect(first.statusCode, first.body).toBe(200);
    const ts = first.json().testset;
    const again = await upload(`/simple/testsets/${ts.id}/upload`, { file_type: "csv" }, "r.csv", `question,answer\n${rows.join("\n")}\n`);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().testset.data.testcase_ids).toEqual(ts.data.testcase_ids);
    expect(again.json().testset.revision_id).not.toBe(ts.revision_id);

    // The same 1,500 rows twice, with their dedup ids given: the same ids twice, in one batch.
    const keyed = Array.from({ length: 1_500 }, (_, i) => `k${i},x${i},d${i}`);
    const twice = await upload("/simple/testsets/upload", { file_type: "csv", testset_slug: "twice" }, "t.csv", `question,answer,testcase_dedup_id\n${[...keyed, ...keyed].join("\n")}\n`);
    expect(twice.statusCode, twice.body).toBe(200);
    const ids: string[] = twice.json().testset.data.testcase_ids;
    expect(ids).toHaveLength(3_000);
    expect(ids.slice(1_500)).toEqual(ids.slice(0, 1_500));
    expect(new Set(ids).size).toBe(1_500);
    const stored = new Set<string>();
    for (let next: string | undefined; ;) {
      const page = await p.ok("POST", "/testcases/query", { testset_id: twice.json().testset.id, windowing: { limit: 1_000, next } });
      for (const t of page.testcases) stored.add(t.id);
      if (!page.windowing?.next) break;
      next = page.windowing.next;
    }
    expect(stored).toEqual(new Set(ids));
    // A delta on it finds the repeated rows through the chunk index.
    const edited = await p.ok("POST", "/testsets/revisions/commit", {
      testset_revision: { testset_variant_id: twice.json().testset.variant_id, delta: { rows: { remove: [ids[7]] } } }, include_testcases: false,
    });
    expect(edited.testset_revision.data.testcase_ids).toEqual(ids.filter((id) => id !== ids[7]));
  }, 120_000);

  it("pages a revision by position: duplicates, id filters, and ids capped at TESSERA_TESTSET_INLINE_LIMIT", async () => {
    const rows = Array.from({ length: 3_000 }, (_, i) => ({ data: { question: `q${i}` } }));
    const ts = (await p.ok("POST", "/simple/testsets/", { testset: { slug: "paged", data: { testcases: rows } } })).testset;
    const ids: string[] = ts.data.testcase_ids;
    // A revision of 4,700 rows where ids repeat, some next to each other and some far apart.
    const expected = [...ids.slice(0, 1_000), ...ids.slice(0, 1_000), ...ids.slice(1_000).flatMap((id, i) => (i % 3 ? [id] : [id, id])), ...ids.slice(0, 100)];
    const rev = (await p.ok("POST", "/testsets/revisions/commit", { testset_revision: { testset_variant_id: ts.variant_id, data: { testcase_ids: expected } }, include_testcases: false })).testset_revision;
    const pageAll = async (body: Record<string, unknown>, limit: number, next?: string) => {
      const got: string[] = [];
      let pages = 0;
      for (;;) {
        const page = await p.ok("POST", "/testcases/query", { ...body, windowing: { limit, next } });
        got.push(...page.testcases.map((t: { id: string }) => t.id));
        pages++;
        if (!page.windowing) return { got, pages };
        expect(page.count).toBe(limit);
        next = page.windowing.next;
      }
    };
    const all = await pageAll({ testset_revision_ref: { id: rev.id } }, 700);
    expect(all.got).toEqual(expected);
    expect(all.pages).toBe(Math.ceil(expected.length / 700));
    // A last-id cursor (as answered before position cursors) continues after that id's first occurrence.
    const legacy = await p.ok("POST", "/testcases/query", { testset_revision_ref: { id: rev.id }, windowing: { limit: 3, next: expected[1] } });
    expect(legacy.testcases.map((t: { id: string }) => t.id)).toEqual(expected.slice(2, 5));
    // Filtered by ids, pages keep the revision's order and its repeats.
    const wanted = new Set([ids[0], ids[1_500], ids[2_999]]);
    const filtered = await pageAll({ testset_revision_ref: { id: rev.id }, testcase_ids: [...wanted] }, 2);
    expect(filtered.got).toEqual(expected.filter((id) => wanted.has(id)));

    await withEnv({ TESSERA_TESTSET_INLINE_LIMIT: "100" }, async () => {
      const read = (await p.ok("POST", "/testsets/revisions/retrieve", { testset_revision_ref: { id: rev.id }, include_testcase_ids: true, include_testcases: false })).testset_revision;
      expect(read.data.testcase_ids).toEqual(expected.slice(0, 100));
      expect(read.data.testcases).toBeUndefined();
      expect(read.data.testcase_count).toBe(expected.length);
      expect(read.data.testcases_windowing).toMatchObject({ limit: 100, testset_revision_ref: { id: rev.id } });
      const rest = await pageAll({ testset_revision_ref: read.data.testcases_windowing.testset_revision_ref }, 1_000, read.data.testcases_windowing.next);
      expect([...read.data.testcase_ids, ...rest.got]).toEqual(expected);
      const both = (await p.ok("POST", "/testsets/revisions/retrieve", { testset_revision_ref: { id: rev.id } })).testset_revision;
      expect(both.data.testcase_ids).toHaveLength(100);
      expect(both.data.testcases.map((t: { id: string }) => t.id)).toEqual(both.data.testcase_ids);
    });
    // Small revisions still list every id, with no paging hint.
    const whole = (await p.ok("POST", "/testsets/revisions/retrieve", { testset_revision_ref: { id: rev.id }, include_testcases: false })).testset_revision;
    expect(whole.data.testcase_ids).toEqual(expected);
    expect(whole.data.testcase_count).toBeUndefined();
    expect(whole.data.testcases_windowing).toBeUndefined();
  }, 120_000);

  it("streams a 200,000-row CSV upload and download; reads inline up to TESSERA_TESTSET_INLINE_LIMIT", async () => {
    const n = 200_000;
    const boundary = "----tessera-scale";
    const { Readable } = await import("node:stream");
    const payload = Readable.from((function* () {
      yield `--${boundary}\r\nContent-Disposition: form-data; name="file_type"\r\n\r\ncsv\r\n`;
      yield `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.csv"\r\nContent-Type: text/csv\r\n\r\nquestion,answer\n`;
      for (let i = 0; i < n; i += 1_000) yield Array.from({ length: 1_000 }, (_, j) => `question ${i + j},answer ${i + j}\n`).join("");
      yield `\r\n--${boundary}--\r\n`;
    })());
    const rss = process.memoryUsage().rss;
    const res = await server.app.inject({
      method: "POST", url: "/api/simple/testsets/upload", payload,
      headers: { authorization: `ApiKey ${p.key}`, "content-type": `multipart/form-data; boundary=${boundary}` },
      query: { include_testcases: "false" },
    });
    expect(res.statusCode, res.body.slice(0, 500)).toBe(200);
    const ts = res.json().testset;
    console.log(`upload of ${n} rows: RSS grew ${Math.round((process.memoryUsage().rss - rss) / 2 ** 20)} MiB`);
    // The upload's answer inlines ids and testcases up to the limit, and says how many there are.
    expect(ts.data.testcase_ids).toHaveLength(10_000);
    // Inline reads stop at the limit and say where to go on.
    expect(ts.data.testcases).toHaveLength(10_000);
    expect(ts.data.testcase_count).toBe(n);
    expect(ts.data.testcases_windowing).toMatchObject({ next: expect.any(String), limit: 10_000, testset_revision_ref: { id: ts.revision_id } });
    const next = await p.ok("POST", "/testcases/query", { testset_revision_ref: { id: ts.revision_id }, windowing: { next: ts.data.testcases_windowing.next, limit: 2 } });
    expect(next.testcases.map((t: { data: { question: string } }) => t.data.question)).toEqual(["question 10000", "question 10001"]);
    await withEnv({ TESSERA_TESTSET_INLINE_LIMIT: "5" }, async () => {
      const small = (await p.ok("POST", "/testsets/revisions/retrieve", { testset_revision_ref: { id: ts.revision_id }, include_testcase_ids: false })).testset_revision;
      expect(small.data.testcases).toHaveLength(5);
      expect(small.data.testcase_count).toBe(n);
    });

    const before = process.memoryUsage().rss;
    const down = await p.call("POST", `/testsets/revisions/${ts.revision_id}/download?file_type=csv`);
    expect(down.statusCode).toBe(200);
    console.log(`download of ${n} rows: ${Math.round(down.rawPayload.length / 2 ** 20)} MiB, RSS grew ${Math.round((process.memoryUsage().rss - before) / 2 ** 20)} MiB`);
    const lines = down.body.trimEnd().split("\n");
    expect(lines).toHaveLength(n + 1);
    expect(lines[n]).toContain("question 199999");
  }, 600_000);
});
