import http from "node:http";
import type { AddressInfo } from "node:net";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../src/accounts/accounts.ts";
import { BinaryRows, tupleField } from "../src/db/copy-binary.ts";
import { fromJsonb, fromJsonbString, toJsonbString, toJsonbText } from "../src/db/jsonb-text.ts";
import { migrate } from "../src/db/migrate.ts";
import { badRequest } from "../src/errors.ts";
import { registerErrorHandling } from "../src/http/error-handler.ts";
import { testsets } from "../src/kinds/testsets.ts";
import { ColumnCounts } from "../src/testsets/columns.ts";
import { testcaseId } from "../src/testsets/testcase-id.ts";
import { loadTestcases } from "../src/testsets/testcases.ts";
import { TraceWriter, writeTrace } from "../src/traces/trace-writer.ts";
import { createSimple } from "../src/versioning/simple.ts";
import { emptyDatabase } from "./support/empty-database.ts";
import { startStubLlm, type StubLlm } from "./support/stub-llm.ts";
import { startTestServer, type TestProject, type TestServer } from "./support/server.ts";

/**
 * Hostile input and output: values PostgreSQL's jsonb cannot hold are stored faithfully (and never
 * cost another tenant its traces), and nothing a client sends ends in a 500 or in an error body that
 * is not `{detail}`.
 */
let server: TestServer;
let p: TestProject;
let llm: StubLlm;
let hook: http.Server;
let hookUrl: string;
const hookHeaders: http.IncomingHttpHeaders[] = [];

beforeAll(async () => {
  llm = await startStubLlm();
  process.env.OPENAI_BASE_URL = llm.baseUrl;
  process.env.OPENAI_API_KEY = "sk-test";
  hook = http.createServer((req, res) => {
    hookHeaders.push(req.headers);
    req.resume();
    req.on("end", () => res.setHeader("content-type", "application/json").end('{"ok":true}'));
  });
  await new Promise<void>((r) => hook.listen(0, "127.0.0.1", r));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}`;
  server = await startTestServer({ TESSERA_ALLOW_PRIVATE_HOOKS: "true" });
  p = await server.project();
});
afterAll(async () => {
  await server.close();
  await llm.close();
  hook.close();
});

const NUL = "\u0000";
/** Strings and keys jsonb cannot hold, and strings that look like their stored escapes. */
const hostile = {
  [`key${NUL}with nul`]: `value${NUL}with nul`,
  plain: "ordinary",
  soh: "\u0001 real start-of-heading",
  lookalikes: "\u00010 \u00011 \\u0000 \\u0001 \\\\u0000",
  nested: { [`${NUL}`]: [NUL, `${NUL}${NUL}`, "\u0001\u0001", 1, null, true] },
};

const prompt = { prompt: { messages: [{ role: "user", content: "Say {{q}}" }], template_format: "curly", llm_config: { model: "gpt-4o-mini" } } };
const invoke = (project: TestProject, body: Record<string, unknown>) =>
  server.app.inject({ method: "POST", url: "/services/completion/v0/invoke", headers: { authorization: `ApiKey ${project.key}` }, payload: body });

describe("traces", () => {
  it("stores a NUL in inputs faithfully, and a batch with it loses no other project's trace", async () => {
    const other = await server.project();
    const inputs = { q: `hi${NUL}there`, ...hostile, lone: "\ud800 lone surrogate" };
    const answers = await Promise.all([
      invoke(p, { data: { inputs, parameters: prompt } }),
      ...Array.from({ length: 20 }, (_, i) => invoke(other, { data: { inputs: { q: `other ${i}` }, parameters: prompt } })),
    ]);
    for (const a of answers) expect(a.statusCode, a.body).toBe(200);
    const [mine, ...theirs] = answers.map((a) => a.json().trace_id as string);
    for (const [i, traceId] of theirs.entries()) {
      const { trace } = await other.ok("GET", `/traces/${traceId}`);
      expect(trace.inputs).toEqual({ q: `other ${i}` });
    }
    const { trace } = await p.ok("GET", `/traces/${mine}`);
    expect(trace.inputs).toEqual(inputs);
  });
});

describe("testcases holding NUL", () => {
  const csvRows = [
    { question: `a${NUL}b`, answer: "\u00010 and \\u0000" },
    { question: "\u0001", answer: `${NUL}` },
  ];

  it("round trip identical through commit, retrieve, queries and JSON download; ids hash the real content", async () => {
    const rows = [{ ...hostile, testcase_dedup_id: "r1" }, { q: `${NUL}`, lone: "\udc00", testcase_dedup_id: "r2" }];
    const res = await p.call("POST", "/simple/testsets/", { testset: { slug: "nul-commit", data: { testcases: rows.map((data) => ({ data, meta: { [`m${NUL}`]: NUL } })) } } });
    expect(res.statusCode, res.body).toBe(200);
    const ts = res.json().testset;
    const expected = rows.map((data) => ({ id: testcaseId(data, ts.id), data, meta: { [`m${NUL}`]: NUL } }));
    expect(ts.data.testcase_ids).toEqual(expected.map((r) => r.id));
    expect(ts.data.testcases).toMatchObject(expected);

    const retrieved = (await p.ok("POST", "/testsets/revisions/retrieve", { testset_revision_ref: { id: ts.revision_id } })).testset_revision;
    expect(retrieved.data.testcases).toMatchObject(expected);
    for (const r of expected) expect((await p.ok("GET", `/testcases/${r.id}`)).testcase).toMatchObject(r);
    const byRevision = await p.ok("POST", "/testcases/query", { testset_revision_ref: { id: ts.revision_id } });
    expect(byRevision.testcases).toMatchObject(expected);
    const byTestset = await p.ok("POST", "/testcases/query", { testset_id: ts.id });
    expect(byTestset.testcases.map((t: { id: string }) => t.id).sort()).toEqual(expected.map((r) => r.id).sort());
    expect(byTestset.testcases.find((t: { id: string }) => t.id === expected[0].id).data).toEqual(rows[0]);

    const down = await p.call("POST", `/testsets/revisions/${ts.revision_id}/download?file_type=json`);
    expect(down.statusCode, down.body).toBe(200);
    expect(JSON.parse(down.body).map((r: Record<string, unknown>) => ({ ...r, __id__: undefined, __meta__: undefined }))).toEqual(
      rows.map((data) => ({ ...data, __id__: undefined, __meta__: undefined })),
    );

    // Committing the same content again (a JSON upload of the download) keeps every id.
    const again = await upload(`/simple/testsets/${ts.id}/upload`, { file_type: "json" }, "again.json", down.body);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().testset.data.testcase_ids).toEqual(ts.data.testcase_ids);
  });

  it("round trip identical through a CSV upload and the CSV and JSON downloads", async () => {
    const csv = `question,answer\n"a${NUL}b","\u00010 and \\u0000"\n"\u0001","${NUL}"\n`;
    const res = await upload("/simple/testsets/upload", { file_type: "csv", testset_slug: "nul-csv" }, "nul.csv", csv);
    expect(res.statusCode, res.body).toBe(200);
    const ts = res.json().testset;
    expect(ts.data.testcases.map((t: { data: Record<string, unknown> }) => ({ question: t.data.question, answer: t.data.answer }))).toEqual(csvRows);
    for (const t of ts.data.testcases) expect(t.id).toBe(testcaseId(t.data, ts.id));

    const csvDown = await p.call("POST", `/testsets/revisions/${ts.revision_id}/download?file_type=csv`);
    expect(csvDown.statusCode, csvDown.body).toBe(200);
    expect(csvDown.body).toContain(`a${NUL}b`);
    const reuploaded = await upload(`/simple/testsets/${ts.id}/upload`, { file_type: "csv" }, "again.csv", csvDown.body);
    expect(reuploaded.statusCode, reuploaded.body).toBe(200);
    expect(reuploaded.json().testset.data.testcase_ids).toEqual(ts.data.testcase_ids);

    const jsonDown = await p.call("POST", `/testsets/revisions/${ts.revision_id}/download?file_type=json`);
    expect(JSON.parse(jsonDown.body).map((r: Record<string, unknown>) => ({ question: r.question, answer: r.answer }))).toEqual(csvRows);
  });

  it("a large upload (loaded in bulk) keeps them too", async () => {
    const rows = Array.from({ length: 2500 }, (_, i) => ({ [`q${NUL}`]: `${i}${NUL}\u0000` }));
    const res = await upload("/simple/testsets/upload", { file_type: "json", testset_slug: "nul-bulk" }, "bulk.json", JSON.stringify(rows));
    expect(res.statusCode, res.body).toBe(200);
    const ts = res.json().testset;
    const down = await p.call("POST", `/testsets/revisions/${ts.revision_id}/download?file_type=json`);
    expect(JSON.parse(down.body).map((r: Record<string, unknown>) => ({ [`q${NUL}`]: r[`q${NUL}`] }))).toEqual(rows);
    const csv = await p.call("POST", `/testsets/revisions/${ts.revision_id}/download?file_type=csv`);
    expect(csv.body.split("\n")[0]).toBe(`q${NUL},testcase_dedup_id,__id__`);
  });
});

function multipart(fields: Record<string, string>, file: { name: string; content: string }) {
  const boundary = "----tessera" + Math.random().toString(16).slice(2);
  const parts = Object.entries(fields).map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`);
  parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: application/octet-stream\r\n\r\n${file.content}\r\n--${boundary}--\r\n`);
  return { payload: parts.join(""), headers: { "content-type": `multipart/form-data; boundary=${boundary}` }, boundary };
}

const upload = (path: string, fields: Record<string, string>, name: string, content: string) => {
  const { payload, headers } = multipart(fields, { name, content });
  return p.call("POST", path, payload, headers);
};

/** A 4xx whose body is `{detail}` with a message matching `pattern`. */
function expectDetail(res: { statusCode: number; body: string; headers: Record<string, unknown> }, status: number, pattern: RegExp) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers["content-type"]).toMatch(/application\/json/);
  const body = JSON.parse(res.body);
  expect(Object.keys(body)).toEqual(["detail"]);
  expect(JSON.stringify(body.detail)).toMatch(pattern);
}

describe("no 500 from any input", () => {
  it("a download's file_name with any character names the file (RFC 6266) without a 500", async () => {
    const ts = (await p.ok("POST", "/simple/testsets/", { testset: { slug: "names", data: { testcases: [{ data: { q: "x" } }] } } })).testset;
    const names: [string, string, string][] = [
      ["résumé 文件.csv", 'filename="r_sum_ __.csv"', "filename*=UTF-8''r%C3%A9sum%C3%A9%20%E6%96%87%E4%BB%B6.csv"],
      [`a${NUL}b\r\nc\u0007d.csv`, 'filename="abcd.csv"', "filename*=UTF-8''abcd.csv"],
      ['../../etc/pass"wd\\x.csv', 'filename=".._.._etc_pass_wd_x.csv"', "filename*=UTF-8''.._.._etc_pass%22wd_x.csv"],
      ["😀", 'filename="_"', "filename*=UTF-8''%F0%9F%98%80"],
    ];
    for (const [given, ascii, extended] of names) {
      for (const path of [`/simple/testsets/${ts.id}/download`, `/testsets/revisions/${ts.revision_id}/download`]) {
        const res = await p.call("POST", `${path}?file_type=csv&file_name=${encodeURIComponent(given)}`);
        expect(res.statusCode, res.body).toBe(200);
        expect(res.headers["content-disposition"]).toBe(`attachment; ${ascii}; ${extended}`);
      }
    }
    const plain = await p.call("POST", `/simple/testsets/${ts.id}/download?file_type=csv&file_name=geo.csv`);
    expect(plain.headers["content-disposition"]).toBe(`attachment; filename="geo.csv"; filename*=UTF-8''geo.csv`);
    const emptied = await p.call("POST", `/simple/testsets/${ts.id}/download?file_type=csv&file_name=${encodeURIComponent("\r\n")}`);
    expect(emptied.headers["content-disposition"]).toBe(`attachment; filename="names-v1.csv"; filename*=UTF-8''names-v1.csv`);
  });

  it("an invoke session_id that cannot be a header is a 400 naming it, before the provider is called", async () => {
    for (const sessionId of ["会话-1", "naïve", `a${NUL}b`, "a\r\nx-injected: 1", "bell\u0007"]) {
      for (const stream of [false, true]) {
        const before = llm.requests.length;
        const res = await invoke(p, { data: { inputs: { q: "x" }, parameters: prompt }, session_id: sessionId, flags: { stream } });
        expectDetail(res, 400, /session_id/);
        expect(llm.requests.length).toBe(before);
      }
    }
    const fine = await invoke(p, { data: { inputs: { q: "x" }, parameters: prompt }, session_id: "session 42/a:b" });
    expect(fine.statusCode, fine.body).toBe(200);
    expect(fine.headers["x-ag-session-id"]).toBe("session 42/a:b");
  });

  it("hook headers that HTTP cannot carry: refused at commit (422) and at invoke (400), naming the header", async () => {
    const bad: [Record<string, string>, RegExp][] = [
      [{ "x-team": "a\r\nx-injected: 1" }, /x-team/],
      [{ "x-nul": `a${NUL}` }, /x-nul/],
      [{ "x-wide": "会" }, /x-wide/],
      [{ "bad name": "v" }, /bad name/],
      [{ "": "v" }, /header/],
    ];
    for (const [headers, name] of bad) {
      const data = { uri: "svc:custom:hook:v0", url: hookUrl, headers };
      const commit = await p.call("POST", "/simple/applications/", { application: { slug: `hook-${crypto.randomUUID()}`, data } });
      expectDetail(commit, 422, name);
      const before = hookHeaders.length;
      const res = await server.app.inject({
        method: "POST", url: "/services/hook/v0/invoke", headers: { authorization: `ApiKey ${p.key}` },
        payload: { data: { inputs: {}, revision: { data } } },
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().status.message).toMatch(name);
      expect(hookHeaders.length).toBe(before);
    }
    const good = { uri: "svc:custom:hook:v0", url: hookUrl, headers: { "x-team": "core team" } };
    await p.ok("POST", "/simple/applications/", { application: { slug: `hook-${crypto.randomUUID()}`, data: good } });
    const res = await server.app.inject({
      method: "POST", url: "/services/hook/v0/invoke", headers: { authorization: `ApiKey ${p.key}` }, payload: { data: { inputs: {}, revision: { data: good } } },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(hookHeaders.at(-1)?.["x-team"]).toBe("core team");
  });

  it("malformed multipart is a 400 on every upload route", async () => {
    const ts = (await p.ok("POST", "/simple/testsets/", { testset: { slug: "multipart", data: { testcases: [{ data: { q: "x" } }] } } })).testset;
    const routes = ["/simple/testsets/upload", `/simple/testsets/${ts.id}/upload`, `/testsets/revisions/${ts.revision_id}/upload`];
    const { payload, headers, boundary } = multipart({ file_type: "csv" }, { name: "a.csv", content: "q\nx\n" });
    const before = (await p.ok("POST", "/testsets/revisions/log", { testset: { testset_id: ts.id } })).count;
    const unclosed = payload.slice(0, payload.indexOf(`\r\n--${boundary}--`));
    for (const route of routes) {
      expectDetail(await p.call("POST", route, unclosed, headers), 400, /multipart/i);
      expectDetail(await p.call("POST", route, payload, { "content-type": "multipart/form-data" }), 400, /boundary/i);
      expectDetail(await p.call("POST", route, "garbage", headers), 400, /multipart/i);
    }
    // Nothing was committed by the failed uploads.
    const log = await p.ok("POST", "/testsets/revisions/log", { testset: { testset_id: ts.id } });
    expect(log.count).toBe(before);
  });
});

describe("every error is {detail}", () => {
  it("an answer whose header cannot be sent is a {detail} 500 without internals, and a plugin's 4xx keeps its status", async () => {
    const app = Fastify({ logger: false });
    registerErrorHandling(app);
    app.get("/bad-header", async (_req, reply) => reply.header("x-echo", "a\r\nb").send({ ok: true }));
    app.get("/bad-header-error", async (_req, reply) => {
      reply.header("x-echo", "会");
      throw badRequest("the input was wrong");
    });
    app.get("/plugin-4xx", async () => {
      throw Object.assign(new Error("the request is not multipart"), { statusCode: 406, code: "FST_INVALID_MULTIPART_CONTENT_TYPE" });
    });
    app.get("/crash", async () => {
      throw new Error("connection to 10.0.0.7 refused");
    });
    await app.ready();
    const crash = await app.inject({ method: "GET", url: "/bad-header" });
    expect(crash.statusCode).toBe(500);
    expect(crash.json()).toEqual({ detail: "Internal server error" });
    expect(crash.headers["x-echo"]).toBeUndefined();
    expectDetail(await app.inject({ method: "GET", url: "/bad-header-error" }), 400, /the input was wrong/);
    expectDetail(await app.inject({ method: "GET", url: "/plugin-4xx" }), 406, /not multipart/);
    const plain = await app.inject({ method: "GET", url: "/crash" });
    expect(plain.statusCode).toBe(500);
    expect(plain.json()).toEqual({ detail: "Internal server error" });
    await app.close();
  });
});

describe("the jsonb escape", () => {
  const tricky = [
    "", "plain", NUL, `${NUL}${NUL}`, "\u0001", "\u00010", "\u00011", "\u0001s", "\u0001sd800", "\\u0000", "\\\\u0001", "\\\u0000",
    "\ud800", "\udfff", "\ud83d\ude00", "a\ud800b\udc00", "\ud800\ud800\udc00",
  ];

  it("restores every string and key exactly, and leaves values without escapes untouched", () => {
    const value = { list: tricky, keys: Object.fromEntries(tricky.map((s, i) => [s, i])), deep: [[{ [NUL]: { [NUL]: NUL } }]] };
    const text = toJsonbText(JSON.stringify(value));
    expect(text).not.toMatch(/(?<!\\)(?:\\\\)*\\u(?:0000|d[89a-f])/);
    expect(fromJsonb(JSON.parse(text))).toEqual(value);
    for (const s of tricky) expect(fromJsonbString(toJsonbString(s))).toBe(s);
    for (const s of tricky) expect(JSON.parse(toJsonbText(JSON.stringify(s)))).toBe(toJsonbString(s));
    const untouched = { a: ["b", { c: 1 }] };
    expect(fromJsonb(untouched)).toBe(untouched);
    expect(toJsonbText(JSON.stringify(untouched))).toBe(JSON.stringify(untouched));
    const proto = fromJsonb(JSON.parse('{"__proto__": {"x": "\\u00010"}}'));
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(proto, "__proto__")?.value).toEqual({ x: NUL });
  });

  it("is accepted by the database, which keeps the text as written", async () => {
    const value = { list: tricky, keys: Object.fromEntries(tricky.map((s, i) => [s, i])) };
    const [row] = await server.db.query<{ v: unknown }>("SELECT $1::jsonb AS v", [toJsonbText(JSON.stringify(value))]);
    expect(fromJsonb(row.v)).toEqual(value);
  });
});

describe("trace batches", () => {
  it("a row the database refuses is reported alone; the rest of its batch (traces or blocks) is stored", async () => {
    const other = await server.project();
    const errors: unknown[] = [];
    const writer = new TraceWriter(server.db, (error) => errors.push(error), { intervalMs: 10_000 });
    const trace = (n: number, projectId: string) => ({
      traceId: `${n.toString(16).padStart(8, "0")}${crypto.randomUUID().replace(/-/g, "").slice(8)}`, spanId: "0".repeat(16),
      references: null, inputs: { n }, outputs: null, status: { code: 200 }, latencyMs: 1, usage: null, spans: [], projectId,
    });
    // Line breaks and tabs in a value are stored as written.
    const rows = Array.from({ length: 10 }, (_, n) => ({ ...trace(n, other.id), inputs: { n, text: "a\nb\tc" } }));
    const scope = { projectId: other.id, userId: null };
    for (const t of rows.slice(0, 5)) writer.add(scope, t);
    // The rest as the evaluation thread hands them over, one block of rows, with a trace the database refuses among
    // them: its span's attributes name a jsonb version (2) that the database does not know.
    const refused = trace(99, other.id);
    const block = new BinaryRows();
    writeTrace(block, scope, refused);
    const refusedRows = block.take();
    tupleField(refusedRows, 15)![0] = 2;
    for (const t of rows.slice(5)) writeTrace(block, scope, t);
    writer.addRows(Buffer.concat([refusedRows, block.take()]), 6);
    await writer.flush();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ traceId: refused.traceId });
    for (const t of rows) expect((await other.ok("GET", `/traces/${t.traceId}`)).trace.inputs).toEqual(t.inputs);
  });

  it("a trace id already stored is skipped; the rest of its batch is stored and nothing is reported", async () => {
    const other = await server.project();
    const errors: unknown[] = [];
    const writer = new TraceWriter(server.db, (error) => errors.push(error), { intervalMs: 10_000 });
    const trace = (n: number) => ({
      traceId: crypto.randomUUID().replace(/-/g, ""), spanId: "0".repeat(16), references: null, inputs: { n },
      outputs: null, status: { code: 200 }, latencyMs: 1, usage: null, spans: [],
    });
    const scope = { projectId: other.id, userId: null };
    const first = trace(1);
    writer.add(scope, first);
    await writer.flush();
    const later = [trace(2), { ...first, inputs: { n: "again" } }, trace(3)];
    for (const t of later) writer.add(scope, t);
    await writer.flush();
    expect(errors).toEqual([]);
    for (const t of [first, later[0]!, later[2]!]) {
      expect((await other.ok("GET", `/traces/${t.traceId}`)).trace.inputs).toEqual(t.inputs);
    }
  });
});

describe("values stored before the escape", () => {
  it("a real U+0001 already stored reads back as it was after migration 010", async () => {
    const empty = await emptyDatabase();
    try {
      const db = await empty.connect();
      await migrate(db);
      const account = await db.transaction((tx) => createAccount(tx, { user: { email: `legacy-${crypto.randomUUID()}@test.local` } }, false));
      const scope = { projectId: account.project.id, userId: account.user.id };
      const legacy = { q: "\u00010 \u00011 \u0001s", "\u0001": "\\u0001 and \\\u0001", nested: ["\u0001"] };
      // As the previous version wrote them: plain JSON text.
      const testcaseId = crypto.randomUUID();
      await db.query("INSERT INTO testcases (project_id, id, testset_id, data, meta) VALUES ($1, $2, $3, $4::jsonb, $4::jsonb)", [
        scope.projectId, testcaseId, crypto.randomUUID(), JSON.stringify(legacy),
      ]);
      const id = await db.transaction((tx) => createSimple(tx, scope, testsets, { slug: "legacy", data: { testcases: [{ data: { "\u00011": "x" } }] } }));
      await db.query(`UPDATE revisions SET data = jsonb_set(data, '{columns}', '{"\\u00011": 1}') WHERE artifact_id = $1`, [id]);
      await db.query("DELETE FROM schema_migrations WHERE version = '010_jsonb_escape'");
      // Traces are spans since migration 028 (tested in test/tracing/invocation-traces.test.ts): the table 010 rewrites
      // stands in here, empty, in place of the view.
      await db.query("DROP VIEW traces");
      await db.query("CREATE TABLE traces (refs jsonb, inputs jsonb, outputs jsonb, status jsonb, usage jsonb, spans jsonb)");

      expect(await migrate(db)).toEqual(["010_jsonb_escape"]);
      const [row] = await loadTestcases(db, scope.projectId, [testcaseId]);
      expect(row.data).toEqual(legacy);
      expect(row.meta).toEqual(legacy);
      const [revision] = await db.query<{ data: { columns: Record<string, number> } }>("SELECT data FROM revisions WHERE artifact_id = $1 AND version > 0", [id]);
      expect(new ColumnCounts({ columns: revision.data.columns }).names()).toEqual(["\u00011"]);
    } finally {
      await empty.dispose();
    }
  });
});
