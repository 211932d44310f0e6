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
    expect(Object.keys(trace.spans)).toEqual(["svc:builtin:completion:v0"]);
    const other = await server.project();
    expect((await other.ok("GET", `/traces/${envelope.trace_id}`))).toEqual({ count: 0 });
  });

  it("records the invocation as spans in the reference's model: a workflow root and the model call", async () => {
    const parameters = prompt("Capital of {{country}}?");
    const inputs = { country: "Chile" };
    const res = await invokeAt("http://x/services/completion/v0", { data: { inputs, parameters } });
    const traceId = res.json().trace_id;
    const { trace } = await p.ok("GET", `/traces/${traceId}`);
    expect(trace).toMatchObject({ trace_id: traceId, span_id: res.json().span_id, status: { code: 200 } });
    const root = trace.spans["svc:builtin:completion:v0"];
    expect(root).toMatchObject({ trace_id: traceId, span_type: "workflow", trace_type: "invocation" });
    expect(root.attributes.ag.data).toMatchObject({ inputs, outputs: "Capital of Chile?", parameters });
    expect(root.attributes.ag.metrics.duration.cumulative).toBe(trace.latency_ms);
    // The model call right under the root: the handler has no span of its own.
    expect(Object.keys(root.spans)).toHaveLength(1);
    const call = Object.values(root.spans as Record<string, any>)[0];
    expect(call).toMatchObject({ span_type: "chat", span_kind: "SPAN_KIND_CLIENT", parent_id: root.span_id });
    expect(call.attributes.ag.data).toMatchObject({
      inputs: {
        prompt: [{ role: "system", content: "You answer in one word." }, { role: "user", content: "Capital of Chile?" }],
      },
      outputs: "Capital of Chile?", parameters: { model: "gpt-4o-mini" }, internals: { template_format: "curly" },
    });
    const tokens = call.attributes.ag.metrics.tokens.incremental;
    expect(tokens.total).toBeGreaterThan(0);
    expect(root.attributes.ag.metrics.tokens.cumulative).toEqual(tokens);
    expect(trace.usage).toEqual({ prompt_tokens: tokens.prompt, completion_tokens: tokens.completion, total_tokens: tokens.total });
    // One store: the span query sees the invocation as it sees spans sent over OTLP.
    const query = await p.ok("POST", "/tracing/spans/query", {
      focus: "span", filter: { conditions: [{ field: "trace_id", value: traceId }] },
    });
    expect(query.spans.map((s: any) => s.span_type).sort()).toEqual(["chat", "workflow"]);
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

  it("runs an uncommitted configuration sent inline with a revision's invoke, and commits nothing", async () => {
    const app = (await p.ok("POST", "/simple/applications/", {
      application: {
        slug: "inline-draft", data: { uri: "svc:builtin:completion:v0", parameters: prompt("Capital of {{country}}?") },
      },
    })).application;
    const revisions = async () => (await p.ok("POST", "/applications/revisions/log", {
      application: { application_variant_id: app.variant_id },
    })).application_revisions.length;
    const committed = await revisions();
    const draft = prompt("Largest city of {{country}}?", { llm_config: { model: "gpt-4o", temperature: 0.2 } });
    // By the revision's own address, streamed: the draft's prompt and settings run, under the revision's references.
    const streamed = await server.app.inject({
      method: "POST", url: `/services/revisions/${app.revision_id}/invoke`,
      headers: { authorization: `ApiKey ${p.key}`, accept: "text/event-stream" },
      payload: { data: { inputs: { country: "Canada" }, parameters: draft } },
    });
    expect(streamed.statusCode).toBe(200);
    expect(streamed.headers["content-type"]).toContain("text/event-stream");
    const done = streamed.body.split("\n\n").find((e) => e.startsWith("event: done"))!;
    const event = JSON.parse(done.split("data: ")[1]);
    expect(event).toMatchObject({ outputs: "Largest city of Canada?", usage: { total_tokens: expect.any(Number) } });
    expect(llm.requests.at(-1)!.body).toMatchObject({ model: "gpt-4o", temperature: 0.2, stream: true });
    const { trace } = await p.ok("GET", `/traces/${event.trace_id}`);
    expect(trace.references.workflow_revision.id).toBe(app.revision_id);
    expect(trace.usage.total_tokens).toBeGreaterThan(0);
    // By references: the inline parameters win over what the references resolve to.
    const byRef = await server.app.inject({
      method: "POST", url: "/services/invoke", headers: { authorization: `ApiKey ${p.key}` },
      payload: {
        data: { inputs: { country: "Chad" }, parameters: draft },
        references: { application_revision: { id: app.revision_id } },
      },
    });
    expect(byRef.statusCode).toBe(200);
    expect(byRef.json().data.outputs).toBe("Largest city of Chad?");
    expect(llm.requests.at(-1)!.body.model).toBe("gpt-4o");
    // Without parameters, the stored configuration.
    const stored = await server.app.inject({
      method: "POST", url: `/services/revisions/${app.revision_id}/invoke`,
      headers: { authorization: `ApiKey ${p.key}` },
      payload: { data: { inputs: { country: "Chad" } } },
    });
    expect(stored.json().data.outputs).toBe("Capital of Chad?");
    expect(llm.requests.at(-1)!.body.model).toBe("gpt-4o-mini");
    expect(await revisions()).toBe(committed);
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
