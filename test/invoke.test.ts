import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStubLlm, type StubLlm } from "./support/stub-llm.ts";
import { startTestServer, type TestProject, type TestServer } from "./support/server.ts";

let server: TestServer;
let p: TestProject;
let llm: StubLlm;
let hook: http.Server;
let hookUrl: string;

beforeAll(async () => {
  llm = await startStubLlm();
  process.env.OPENAI_BASE_URL = llm.baseUrl;
  process.env.OPENAI_API_KEY = "sk-test";
  hook = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const { inputs, parameters } = JSON.parse(body);
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ echoed: inputs.question, tone: parameters.tone, header: req.headers["x-team"] ?? null }));
    });
  });
  await new Promise<void>((r) => hook.listen(0, "127.0.0.1", r));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}`;
  server = await startTestServer({ TESSERA_ALLOW_PRIVATE_HOOKS: "true", TESSERA_SECRET_KEY: "test-secret" });
  p = await server.project();
});
afterAll(async () => {
  await server.close();
  await llm.close();
  hook.close();
});

/** The seed's procedure: retrieve, read data.url, POST {url}/invoke with the same key. */
async function invokeAt(url: string, body: unknown, project = p, headers: Record<string, string> = {}) {
  const path = new URL(url).pathname;
  return server.app.inject({ method: "POST", url: `${path}/invoke`, headers: { authorization: `ApiKey ${project.key}`, ...headers }, payload: body as object });
}

const prompt = (user: string, extra: object = {}) => ({
  prompt: { messages: [{ role: "system", content: "You answer in one word." }, { role: "user", content: user }], template_format: "curly", llm_config: { model: "gpt-4o-mini" }, ...extra },
});

describe("invoking applications through the hosted runtime", () => {
  it("runs a completion app: retrieve → data.url → POST {url}/invoke, and records the trace", async () => {
    await p.ok("POST", "/simple/applications/", { application: { slug: "capitals", data: { uri: "svc:builtin:completion:v0", parameters: prompt("Capital of {{country}}?") } } });
    await p.ok("POST", "/applications/revisions/deploy", { application_ref: { slug: "capitals" }, environment_ref: { slug: "production" } });
    const { application_revision: rev } = await p.ok("POST", "/applications/revisions/retrieve", { application_ref: { slug: "capitals" }, environment_ref: { slug: "production" } });
    expect(rev.data.url).toMatch(/\/services\/completion\/v0$/);
    const res = await invokeAt(rev.data.url, { data: { inputs: { country: "France" }, parameters: rev.data.parameters } });
    expect(res.statusCode).toBe(200);
    const envelope = res.json();
    expect(envelope).toMatchObject({ status: { code: 200, message: "Success" }, data: { outputs: "Capital of France?" } });
    expect(envelope.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(envelope.span_id).toMatch(/^[0-9a-f]{16}$/);
    expect(res.headers["x-ag-trace-id"]).toBe(envelope.trace_id);
    expect(res.headers.traceparent).toBe(`00-${envelope.trace_id}-${envelope.span_id}-01`);
    const { trace } = await p.ok("GET", `/traces/${envelope.trace_id}`);
    expect(trace).toMatchObject({ inputs: { country: "France" }, outputs: "Capital of France?", status: { code: 200 } });
    expect(trace.spans.length).toBeGreaterThanOrEqual(2);
    const other = await server.project();
    expect((await other.call("GET", `/traces/${envelope.trace_id}`)).statusCode).toBe(404);
  });

  it("stores what a trace repeats once, and reads the trace back whole", async () => {
    const parameters = prompt("Capital of {{country}}?");
    const inputs = { country: "Chile" };
    const res = await invokeAt("http://x/services/completion/v0", { data: { inputs, parameters } });
    const traceId = res.json().trace_id;
    const { trace } = await p.ok("GET", `/traces/${traceId}`);
    const [root, task, call] = trace.spans;
    for (const span of trace.spans) expect(span.trace_id).toBe(traceId);
    expect(root.attributes).toMatchObject({
      inputs: trace.inputs, outputs: "Capital of Chile?", usage: trace.usage, uri: "svc:builtin:completion:v0",
    });
    expect(root.attributes.parameters).toEqual(parameters);
    expect(task.attributes.outputs).toBe("Capital of Chile?");
    expect(task.attributes.messages).toEqual([
      { role: "system", content: "You answer in one word." }, { role: "user", content: "Capital of Chile?" },
    ]);
    expect(call.attributes).toMatchObject({
      prompt: task.attributes.messages, outputs: "Capital of Chile?", usage: trace.usage, model: "gpt-4o-mini",
    });
    // Stored: no span repeats the trace id, the row's inputs, outputs and usage, or the prompt the task span holds.
    const [stored] = await server.db.query<{ spans: { trace_id?: string; same?: object; attributes: object }[] }>(
      "SELECT spans FROM traces WHERE trace_id = $1", [traceId],
    );
    expect(stored.spans.every((s) => !("trace_id" in s))).toBe(true);
    const fromRow = { outputs: "row.outputs", usage: "row.usage" };
    expect(stored.spans[0]).toMatchObject({ same: { inputs: "row.inputs", ...fromRow } });
    expect(stored.spans[2]).toMatchObject({ same: { prompt: "1.messages", ...fromRow } });
    expect(stored.spans[2].attributes).not.toHaveProperty("prompt");
  });

  it("reads traces stored before their spans were packed as they were stored", async () => {
    const span = {
      trace_id: "a".repeat(32), span_id: "b".repeat(16), parent_id: null, name: "x", type: "workflow",
      attributes: { inputs: { q: "a question" } },
    };
    await server.db.query(
      `INSERT INTO traces (trace_id, project_id, span_id, inputs, outputs, status, latency_ms, spans)
       VALUES ($1, $2, $3, $4, '"an answer"', '{"code": 200}', 1, $5)`,
      ["a".repeat(32), p.id, "b".repeat(16), JSON.stringify({ q: "a question" }), JSON.stringify([span])],
    );
    const { trace } = await p.ok("GET", `/traces/${"a".repeat(32)}`);
    expect(trace.spans).toEqual([span]);
  });

  it("invokes by environment reference (reference envelope) after a deploy", async () => {
    const res = await server.app.inject({
      method: "POST", url: "/services/invoke", headers: { authorization: `ApiKey ${p.key}` },
      payload: { data: { inputs: { country: "Peru" } }, references: { application: { slug: "capitals" }, environment: { slug: "production" } } },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.outputs).toBe("Capital of Peru?");
  });

  it("names a missing template variable in a 400 envelope", async () => {
    const res = await invokeAt("http://x/services/completion/v0", { data: { inputs: {}, parameters: prompt("Capital of {{country}}?") } });
    expect(res.statusCode).toBe(400);
    expect(res.json().status.message).toMatch(/country/);
    expect(res.json().data).toBeUndefined();
  });

  it("maps a provider's rejected key to 424", async () => {
    const res = await invokeAt("http://x/services/completion/v0", { data: { inputs: {}, parameters: { prompt: { messages: [{ role: "user", content: "hi" }], llm_config: { model: "openai/stub-401" } } } } });
    expect(res.statusCode).toBe(424);
  });

  it("runs a chat app with history appended after the prompt", async () => {
    const res = await invokeAt("http://x/services/chat/v0", {
      data: { inputs: { messages: [{ role: "user", content: "Hello there" }] }, parameters: { prompt: { messages: [{ role: "system", content: "Be kind." }], llm_config: { model: "gpt-4o-mini" } } } },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.outputs).toMatchObject({ role: "assistant", content: "Hello there" });
  });

  it("streams server-sent events when asked", async () => {
    const res = await invokeAt("http://x/services/completion/v0", { data: { inputs: { country: "Chile" }, parameters: prompt("Capital of {{country}}?") } }, p, { accept: "text/event-stream", "accept-encoding": "gzip" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-encoding"]).toBeUndefined();
    expect(res.headers["content-type"]).toMatch(/text\/event-stream/);
    expect(res.body).toContain("event: delta");
    const done = res.body.split("\n\n").find((e) => e.startsWith("event: done"))!;
    expect(JSON.parse(done.split("data: ")[1])).toMatchObject({ outputs: "Capital of Chile?" });
  });

  it("runs a custom code app at its revision's address", async () => {
    const app = (await p.ok("POST", "/simple/applications/", {
      application: { slug: "doubler", data: { uri: "svc:custom:code:v0", script: "function run(inputs, parameters) { return { doubled: inputs.n * parameters.factor }; }", parameters: { factor: 2 } } },
    })).application;
    expect(app.data.url).toMatch(/\/services\/revisions\//);
    const res = await invokeAt(app.data.url, { data: { inputs: { n: 21 } } });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.outputs).toEqual({ doubled: 42 });
  });

  it("forwards a custom hook app to the user's service", async () => {
    const app = (await p.ok("POST", "/simple/applications/", {
      application: { slug: "hooked", data: { uri: "svc:custom:hook:v0", url: hookUrl, headers: { "x-team": "qa" }, parameters: { tone: "dry" } } },
    })).application;
    expect(app.data.url).toBe(hookUrl);
    const res = await server.app.inject({
      method: "POST", url: "/services/invoke", headers: { authorization: `ApiKey ${p.key}` },
      payload: { data: { inputs: { question: "why?" } }, references: { application: { id: app.id } } },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.outputs).toEqual({ echoed: "why?", tone: "dry", header: "qa" });
  });

  it("requires the API key and keeps other projects' revisions out of reach", async () => {
    const anonymous = await server.app.inject({ method: "POST", url: "/services/completion/v0/invoke", payload: { data: { inputs: {} } } });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().detail).toMatch(/Authorization/);
    const other = await server.project();
    const res = await server.app.inject({
      method: "POST", url: "/services/invoke", headers: { authorization: `ApiKey ${other.key}` },
      payload: { data: { inputs: {} }, references: { application: { slug: "capitals" } } },
    });
    expect(res.statusCode).toBe(404);
    const health = await server.app.inject({ method: "GET", url: "/services/completion/v0/health" });
    expect(health.json()).toEqual({ status: "ok" });
  });

  it("uses a project's provider secret, never returning the key", async () => {
    const created = await p.ok("POST", "/secrets/", { secret: { provider: "custom", slug: "local-llm", api_key: "sk-project", base_url: llm.baseUrl } });
    expect(JSON.stringify(created)).not.toContain("sk-project");
    const res = await invokeAt("http://x/services/completion/v0", { data: { inputs: {}, parameters: { prompt: { messages: [{ role: "user", content: "ping" }], llm_config: { model: "local-llm/stub-model" } } } } });
    expect(res.statusCode).toBe(200);
    expect(llm.requests.at(-1)!.headers.authorization).toBe("Bearer sk-project");
    const listed = await p.ok("GET", "/secrets/");
    expect(JSON.stringify(listed)).not.toContain("sk-project");
  });
});
