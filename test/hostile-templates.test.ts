import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStubLlm, type StubLlm } from "./support/stub-llm.ts";
import { startTestServer, type TestProject, type TestServer } from "./support/server.ts";

let server: TestServer;
let small: TestServer;
let p: TestProject;
let q: TestProject;
let llm: StubLlm;

beforeAll(async () => {
  llm = await startStubLlm();
  process.env.OPENAI_BASE_URL = llm.baseUrl;
  process.env.OPENAI_API_KEY = "sk-test";
  server = await startTestServer();
  small = await startTestServer({ TESSERA_TEMPLATE_MAX_BYTES: "2000", TESSERA_TEMPLATE_MAX_STEPS: "500" });
  p = await server.project();
  q = await small.project();
});
afterAll(async () => {
  await server.close();
  await small.close();
  await llm.close();
});

const LIMIT_TYPE = /#v0:templates:limit$/;

function invoke(service: string, body: unknown, on = server, project = p) {
  return on.app.inject({
    method: "POST", url: `/services/${service}/v0/invoke`, headers: { authorization: `ApiKey ${project.key}` }, payload: body as object,
  });
}

function completion(format: string, messages: unknown[], inputs: Record<string, unknown>, llmConfig: object = {}) {
  const prompt = { messages, template_format: format, llm_config: { model: "gpt-4o-mini", ...llmConfig } };
  return { data: { inputs, parameters: { prompt } } };
}

/** Runs `send` and returns what the provider received meanwhile. */
async function providerCallsDuring<T>(send: () => Promise<T>): Promise<[T, number]> {
  const before = llm.requests.length;
  const result = await send();
  return [result, llm.requests.length - before];
}

describe("hostile templates on the invoke route", () => {
  it("answers the nested-section bomb with a 400 naming the step limit, and calls no provider", async () => {
    const body = completion("mustache", [{ role: "user", content: "{{#x}}{{#x}}{{#x}}y{{/x}}{{/x}}{{/x}}" }], {
      x: Array.from({ length: 1000 }, (_, i) => i),
    });
    expect(JSON.stringify(body).length).toBeLessThan(6_000);
    const [res, calls] = await providerCallsDuring(() => invoke("completion", body));
    expect(calls).toBe(0);
    expect(res.statusCode).toBe(400);
    const envelope = res.json();
    expect(envelope.status.code).toBe(400);
    expect(envelope.status.type).toMatch(LIMIT_TYPE);
    expect(envelope.status.message).toContain("TESSERA_TEMPLATE_MAX_STEPS (1000000 steps)");
    expect(envelope.status.message).toContain("prompt.messages[0].content");
    const { trace } = await p.ok("GET", `/traces/${envelope.trace_id}`);
    expect(trace.status).toMatchObject({ code: 400, type: envelope.status.type });
  });

  it("stops the bomb before the provider when the answer is streamed too", async () => {
    const body = { ...completion("mustache", [{ role: "user", content: "{{#x}}{{#x}}{{#x}}y{{/x}}{{/x}}{{/x}}" }], {
      x: Array.from({ length: 1000 }, (_, i) => i),
    }), flags: { stream: true } };
    const [res, calls] = await providerCallsDuring(() => invoke("completion", body));
    expect(calls).toBe(0);
    expect(res.body).toContain("TESSERA_TEMPLATE_MAX_STEPS");
  });

  it("counts every message against one budget: small ones cannot add up past the output cap", async () => {
    const messages = Array.from({ length: 30 }, () => ({ role: "user", content: "{{x}}" }));
    const [res, calls] = await providerCallsDuring(() => invoke("completion", completion("curly", messages, { x: "a".repeat(50_000) })));
    expect(calls).toBe(0);
    expect(res.statusCode).toBe(400);
    expect(res.json().status.type).toMatch(LIMIT_TYPE);
    expect(res.json().status.message).toContain("TESSERA_TEMPLATE_MAX_BYTES (1048576 bytes");
    expect(res.json().status.message).toContain("prompt.messages[20].content");
  });

  it("counts the response format in the same budget", async () => {
    const messages = Array.from({ length: 10 }, () => ({ role: "user", content: "{{ x }}" }));
    const responseFormat = { type: "json_schema", json_schema: { name: "a", schema: { type: "object", description: "{{ x }}{{ x }}" } } };
    const body = completion("jinja2", messages, { x: "b".repeat(100_000) }, { response_format: responseFormat });
    const [res, calls] = await providerCallsDuring(() => invoke("completion", body));
    expect(calls).toBe(0);
    expect(res.statusCode).toBe(400);
    expect(res.json().status.message).toMatch(/TESSERA_TEMPLATE_MAX_BYTES .* in llm_config\.response_format/);
  });

  it("refuses jinja range, repetition and join bombs the same way", async () => {
    for (const content of ["{% for i in range(10**9) %}x{% endfor %}", "{{ 'x' * 10**9 }}", "{{ range(10000)|join('y' * 1000) }}"]) {
      const [res, calls] = await providerCallsDuring(() => invoke("completion", completion("jinja2", [{ role: "user", content }], {})));
      expect(calls, content).toBe(0);
      expect(res.statusCode, content).toBe(400);
      expect(res.json().status.message, content).toMatch(/TESSERA_TEMPLATE_MAX_(BYTES|STEPS)/);
    }
  });

  it("still sends a large but legal prompt", async () => {
    const document = "word ".repeat(150_000);
    const rows = Array.from({ length: 2_000 }, (_, i) => ({ q: `q${i}` }));
    const body = completion("mustache", [
      { role: "system", content: "{{#rows}}{{q}} {{/rows}}" },
      { role: "user", content: "Summarise: {{document}}" },
    ], { document, rows });
    const [res, calls] = await providerCallsDuring(() => invoke("completion", body));
    expect(res.statusCode).toBe(200);
    expect(calls).toBe(1);
    const sent = llm.requests.at(-1)!.body.messages;
    expect(sent[1].content).toBe(`Summarise: ${document}`);
    expect(String(sent[0].content)).toContain("q1999 ");
  });

  it("takes its limits from TESSERA_TEMPLATE_MAX_BYTES and TESSERA_TEMPLATE_MAX_STEPS", async () => {
    const tooLong = completion("fstring", [{ role: "user", content: "{x}" }], { x: "c".repeat(2_001) });
    const [bytes, calls] = await providerCallsDuring(() => invoke("completion", tooLong, small, q));
    expect(calls).toBe(0);
    expect(bytes.statusCode).toBe(400);
    expect(bytes.json().status.message).toContain("TESSERA_TEMPLATE_MAX_BYTES (2000 bytes");
    const loop = completion("jinja2", [{ role: "user", content: "{% for i in range(1000) %}{% endfor %}" }], {});
    const steps = await invoke("completion", loop, small, q);
    expect(steps.statusCode).toBe(400);
    expect(steps.json().status.message).toContain("TESSERA_TEMPLATE_MAX_STEPS (500 steps)");
    expect((await invoke("completion", completion("fstring", [{ role: "user", content: "{x}" }], { x: "ok" }), small, q)).statusCode).toBe(200);
  });

  it("holds the LLM judge's prompt to the same budget", async () => {
    const body = {
      data: {
        inputs: { question: "Why?" }, outputs: "d".repeat(3_000),
        parameters: { model: "gpt-4o-mini", template_format: "curly", prompt_template: [{ role: "user", content: "Grade: {{outputs}}" }] },
      },
    };
    const [res, calls] = await providerCallsDuring(() => invoke("auto_ai_critique", body, small, q));
    expect(calls).toBe(0);
    expect(res.statusCode).toBe(400);
    expect(res.json().status.type).toMatch(LIMIT_TYPE);
    expect(res.json().status.message).toContain("TESSERA_TEMPLATE_MAX_BYTES (2000 bytes");
  });
});
