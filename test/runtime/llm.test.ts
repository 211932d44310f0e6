import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { invokeWorkflow, type StreamEvent, streamWorkflow, type WorkflowResult } from "../../src/runtime/invoke.ts";
import type { InvokeRequest } from "../../src/runtime/invoke-request.ts";
import { WorkflowError } from "../../src/runtime/errors.ts";
import { resolveModelTarget } from "../../src/runtime/providers/resolve.ts";
import { startStubLlm, type StubLlm } from "../support/stub-llm.ts";
import { failure } from "./failure.ts";

let stub: StubLlm;
beforeAll(async () => {
  stub = await startStubLlm();
});
afterAll(() => stub.close());

const completion = (model: string, extra: Record<string, unknown> = {}, inputs: Record<string, unknown> = { country: "France" }): InvokeRequest => ({
  uri: "svc:builtin:completion:v0",
  parameters: {
    prompt: {
      messages: [
        { role: "system", content: "You are a geography tutor." },
        { role: "user", content: "What is the capital of {{country}}?" },
      ],
      llm_config: { model, ...extra },
    },
  },
  inputs,
  env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: stub.baseUrl },
});

const chat = (inputs: Record<string, unknown>, extra: Record<string, unknown> = {}): InvokeRequest => ({
  ...completion("gpt-4o-mini", extra, inputs),
  uri: "agenta:builtin:chat:v0",
  parameters: { prompt: { messages: [{ role: "system", content: "You speak {{language}}." }], llm_config: { model: "gpt-4o-mini", ...extra } } },
});


const lastRequest = () => stub.requests.at(-1)!;

describe("completion and chat through an OpenAI-compatible provider", () => {
  it("renders the prompt, calls the model and returns the text with usage and spans", async () => {
    const result = await invokeWorkflow(completion("gpt-4o-mini", { temperature: 0.3, max_tokens: 50 }));
    expect(result.outputs).toBe("What is the capital of France?");
    expect(result.usage).toEqual({ prompt_tokens: 20, completion_tokens: 7, total_tokens: 27 });
    expect(lastRequest().headers.authorization).toBe("Bearer sk-test");
    expect(lastRequest().body).toMatchObject({
      model: "gpt-4o-mini",
      temperature: 0.3,
      max_tokens: 50,
      messages: [{ role: "system", content: "You are a geography tutor." }, { role: "user", content: "What is the capital of France?" }],
    });

    expect(result.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(result.spanId).toMatch(/^[0-9a-f]{16}$/);
    // The model call sits right under the workflow span: the handler has no span of its own.
    const [root, provider] = result.spans;
    expect(result.spans).toHaveLength(2);
    expect(root).toMatchObject({ span_id: result.spanId, trace_id: result.traceId, parent_id: null, type: "workflow", name: "svc:builtin:completion:v0", status: { code: "ok" } });
    expect(root.attributes).toMatchObject({ inputs: { country: "France" }, outputs: "What is the capital of France?" });
    expect(provider).toMatchObject({
      parent_id: root.span_id, type: "chat",
      attributes: { provider: "openai", model: "gpt-4o-mini", usage: result.usage, template_format: "curly" },
    });
    for (const span of result.spans) expect(span.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it("prefers a per-call secret to the environment key", async () => {
    await invokeWorkflow({ ...completion("openai/gpt-4o"), secrets: [{ provider: "openai", api_key: "sk-from-secret" }] });
    expect(lastRequest().headers.authorization).toBe("Bearer sk-from-secret");
    expect(lastRequest().body.model).toBe("gpt-4o");
  });

  it("returns the parsed object for json_schema and json_object", async () => {
    const schema = { type: "object", properties: { capital: { type: "string" }, population: { type: "integer" } }, required: ["capital", "population"] };
    const result = await invokeWorkflow(completion("gpt-4o", { response_format: { type: "json_schema", json_schema: { name: "answer", schema, strict: true } } }));
    expect(result.outputs).toEqual({ capital: "What is the capital of France?", population: 42 });
    expect(lastRequest().body.response_format).toMatchObject({ type: "json_schema", json_schema: { name: "answer", strict: true } });

    const json = await invokeWorkflow(completion("gpt-4o", { response_format: { type: "json_object" } }));
    expect(json.outputs).toEqual({ echo: "What is the capital of France?" });
    expect(lastRequest().body.response_format).toEqual({ type: "json_object" });

    const bad = await failure(completion("openai/stub-not-json", { response_format: { type: "json_object" } }));
    expect(bad.statusCode).toBe(502);
  });

  it("returns tool calls in the OpenAI shape", async () => {
    const tools = [{ type: "function", function: { name: "get_capital", description: "Look up a capital", parameters: { type: "object", properties: { query: { type: "string" } } } } }];
    const result = await invokeWorkflow(chat({ language: "English", messages: [{ role: "user", content: "Capital of Peru?" }] }, { tools, tool_choice: "auto" }));
    expect(result.outputs).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_stub_1", type: "function", function: { name: "get_capital", arguments: '{"query":"Capital of Peru?"}' } }],
    });
    expect(lastRequest().body.tools).toEqual([{ type: "function", function: { name: "get_capital", description: "Look up a capital", parameters: { type: "object", properties: { query: { type: "string" } } } } }]);
    expect(lastRequest().body.tool_choice).toBe("auto");

    const completionResult = await invokeWorkflow(completion("gpt-4o", { tools, tool_choice: { type: "function", function: { name: "get_capital" } } }));
    expect(completionResult.outputs).toEqual([{ id: "call_stub_1", type: "function", function: { name: "get_capital", arguments: '{"query":"What is the capital of France?"}' } }]);
  });

  it("appends the chat history after the prompt and answers with an assistant message", async () => {
    const history = [
      { role: "user", content: "Capital of Peru?" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "get_capital", arguments: '{"query":"Peru"}' } }] },
      { role: "tool", tool_call_id: "call_1", content: "Lima" },
    ];
    const result = await invokeWorkflow(chat({ language: "Spanish", messages: history }));
    expect(result.outputs).toEqual({ role: "assistant", content: "Tool said: Lima" });
    const sent = lastRequest().body.messages;
    expect(sent[0]).toEqual({ role: "system", content: "You speak Spanish." });
    expect(sent[1]).toEqual({ role: "user", content: "Capital of Peru?" });
    expect(sent[2]).toMatchObject({ role: "assistant", tool_calls: [{ id: "call_1", type: "function", function: { name: "get_capital", arguments: '{"query":"Peru"}' } }] });
    expect(sent[3]).toEqual({ role: "tool", tool_call_id: "call_1", content: "Lima" });

    const simple = await invokeWorkflow(chat({ language: "French", messages: [{ role: "user", content: "Bonjour {{language}}" }] }));
    expect(simple.outputs).toEqual({ role: "assistant", content: "Bonjour {{language}}" });
  });

  it("streams text deltas, then the full output and usage", async () => {
    const events: StreamEvent[] = [];
    for await (const event of streamWorkflow(completion("gpt-4o-mini"))) events.push(event);
    const deltas = events.filter((e) => e.type === "delta").map((e) => (e as { text: string }).text);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe("What is the capital of France?");
    const done = events.at(-1) as { type: "done"; result: WorkflowResult };
    expect(done.type).toBe("done");
    expect(done.result.outputs).toBe("What is the capital of France?");
    expect(done.result.usage).toEqual({ prompt_tokens: 20, completion_tokens: 7, total_tokens: 27 });
    expect(lastRequest().body.stream).toBe(true);

    const chatEvents: StreamEvent[] = [];
    for await (const event of streamWorkflow(chat({ language: "x", messages: [{ role: "user", content: "one two" }] }))) chatEvents.push(event);
    expect((chatEvents.at(-1) as { result: WorkflowResult }).result.outputs).toEqual({ role: "assistant", content: "one two" });
  });

  it("cancels the provider call when the consumer stops reading", async () => {
    const before = stub.abandonedStreams;
    const started = Date.now();
    for await (const event of streamWorkflow(completion("openai/stub-slow"))) {
      expect(event).toEqual({ type: "delta", text: "What " });
      break;
    }
    expect(Date.now() - started).toBeLessThan(5_000);
    await expect.poll(() => stub.abandonedStreams).toBe(before + 1);
  });

  it("maps provider failures: 401/403/429 to 424, 500 to 502, timeout to 504", async () => {
    const unauthorized = await failure(completion("openai/stub-401"));
    expect(unauthorized).toMatchObject({ statusCode: 424, type: expect.stringMatching(/invalid-secrets$/) });
    expect(unauthorized.message).toMatch(/openai.*401/);
    expect(await failure(completion("openai/stub-403"))).toMatchObject({ statusCode: 424 });
    expect(await failure(completion("openai/stub-429", {}, { country: "x" }))).toMatchObject({ statusCode: 424, type: expect.stringMatching(/rate-limited$/) });
    const serverError = await failure(completion("openai/stub-500"));
    expect(serverError.statusCode).toBe(502);
    expect(serverError.message).toMatch(/500/);
    const badKey = await failure({ ...completion("gpt-4o"), secrets: [{ provider: "openai", api_key: "sk-bad" }] });
    expect(badKey.statusCode).toBe(424);

    const started = Date.now();
    const timeout = await failure({ ...completion("openai/stub-hang"), timeouts: { providerMs: 300 } });
    expect(timeout).toMatchObject({ statusCode: 504, type: expect.stringMatching(/timeout$/) });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(timeout.trace?.spans.every((s) => s.status.code === "error")).toBe(true);
  });

  it("tries a failed call again when llm_config.retry_config.max_retries allows, and only then", async () => {
    // stub-500-once fails the first request for each question with a 500 and answers the next.
    const once = "openai/stub-500-once";
    expect(await failure(completion(once, {}, { country: "Chile" }))).toMatchObject({ statusCode: 502 });
    const before = stub.requests.length;
    const result = await invokeWorkflow(completion(once, { retry_config: { max_retries: 1 } }, { country: "Peru" }));
    expect(result.outputs).toMatch(/Peru/);
    expect(stub.requests.length - before).toBe(2);
    // A rejected key is not tried again.
    const rejected = stub.requests.length;
    const retried = completion("gpt-4o", { retry_config: { max_retries: 2 } });
    const badKey = { ...retried, secrets: [{ provider: "openai", api_key: "sk-bad" }] };
    expect(await failure(badKey)).toMatchObject({ statusCode: 424 });
    expect(stub.requests.length - rejected).toBe(1);
  });

  it("maps failures while streaming too", async () => {
    const consume = async (request: InvokeRequest) => {
      try {
        for await (const _ of streamWorkflow(request)) { /* drain */ }
      } catch (error) {
        return error as WorkflowError;
      }
      throw new Error("expected a failure");
    };
    expect(await consume(completion("openai/stub-429"))).toMatchObject({ statusCode: 424 });
    expect(await consume(completion("openai/stub-500"))).toMatchObject({ statusCode: 502 });
    expect(await consume({ ...completion("openai/stub-hang"), timeouts: { providerMs: 300 } })).toMatchObject({ statusCode: 504 });
  });

  it("cuts off a provider's answer past 32 MiB, whole or streamed, with a 502 naming the limit", async () => {
    const whole = await failure(completion("openai/stub-huge"));
    expect(whole).toMatchObject({ statusCode: 502 });
    expect(whole.message).toMatch(/exceeds 33554432 bytes/);
    let streamed: unknown = null;
    try {
      for await (const _ of streamWorkflow(completion("openai/stub-huge"))) { /* drain */ }
    } catch (error) {
      streamed = error;
    }
    expect(streamed).toMatchObject({ statusCode: 502 });
  });

  it("answers 502 when the provider cannot be reached", async () => {
    const error = await failure({ ...completion("gpt-4o"), env: { OPENAI_API_KEY: "sk", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" } });
    expect(error.statusCode).toBe(502);
    expect(error.message).toMatch(/unreachable/);
  });

  it("refuses a model without a key, naming the provider", async () => {
    const error = await failure({ ...completion("anthropic/claude-sonnet-4-5"), env: {} });
    expect(error).toMatchObject({ statusCode: 400, type: expect.stringMatching(/invalid-secrets$/) });
    expect(error.message).toMatch(/'anthropic'/);
    expect(error.message).toMatch(/ANTHROPIC_API_KEY/);
    expect((await failure({ ...completion("gpt-4o"), env: {} })).message).toMatch(/'openai'.*OPENAI_API_KEY/);
    expect((await failure({ ...completion("mistral/mistral-large-latest"), env: {} })).message).toMatch(/'mistral'/);
  });

  it("reaches a custom OpenAI-compatible provider by its slug, guarding its base URL", async () => {
    const secrets = [{ provider: "my-llm", api_key: "sk-custom", base_url: stub.baseUrl }];
    const result = await invokeWorkflow({ ...completion("my-llm/llama-3-8b"), env: {}, secrets, allowPrivateHooks: true });
    expect(result.outputs).toBe("What is the capital of France?");
    expect(lastRequest().headers.authorization).toBe("Bearer sk-custom");
    expect(lastRequest().body.model).toBe("llama-3-8b");

    const refused = await failure({ ...completion("my-llm/llama-3-8b"), env: {}, secrets });
    expect(refused.statusCode).toBe(400);
    expect(refused.message).toMatch(/https/);
    const loopback = await failure({ ...completion("my-llm/llama-3-8b"), env: {}, secrets: [{ ...secrets[0], base_url: "https://127.0.0.1:1/v1" }] });
    expect(loopback.message).toMatch(/loopback/);
  });

  it("rejects unknown URIs and bad inputs", async () => {
    expect(await failure({ ...completion("gpt-4o"), uri: "svc:builtin:translate:v0" })).toMatchObject({ statusCode: 400 });
    expect(await failure({ ...completion("gpt-4o"), inputs: [] as never })).toMatchObject({ statusCode: 400 });
    expect(await failure(completion("gpt-4o", {}, {}))).toMatchObject({ statusCode: 400, message: "Missing template variable: country" });
  });
});

describe("model ids", () => {
  const env = { OPENAI_API_KEY: "o", ANTHROPIC_API_KEY: "a", GEMINI_API_KEY: "g", TOGETHERAI_API_KEY: "t" };
  it.each([
    ["gpt-4o-mini", "openai", "gpt-4o-mini"],
    ["o3-mini", "openai", "o3-mini"],
    ["o1", "openai", "o1"],
    ["openai/gpt-4o", "openai", "gpt-4o"],
    ["claude-3-5-sonnet-20241022", "anthropic", "claude-3-5-sonnet-20241022"],
    ["anthropic/claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5"],
    ["gemini/gemini-2.0-flash", "gemini", "gemini-2.0-flash"],
    ["gemini-1.5-pro", "gemini", "gemini-1.5-pro"],
    ["together_ai/meta-llama/Llama-3-70b", "together_ai", "meta-llama/Llama-3-70b"],
  ])("%s → %s", (id, provider, model) => {
    expect(resolveModelTarget(id, [], env)).toMatchObject({ provider, model });
  });

  it("cannot guess the provider of an unknown bare name", () => {
    expect(() => resolveModelTarget("llama-3", [], env)).toThrow(/prefix it with the provider/);
  });
});
