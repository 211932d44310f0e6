import http, { type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVALUATORS } from "../../src/catalog/evaluator-templates.ts";
import { WorkflowError } from "../../src/runtime/errors.ts";
import { invokeWorkflow, streamWorkflow, type WorkflowResult } from "../../src/runtime/invoke.ts";
import type { InvokeRequest } from "../../src/runtime/invoke-request.ts";
import { startStubLlm, type StubLlm } from "../support/stub-llm.ts";
import { failure } from "./failure.ts";

/**
 * A small server on 127.0.0.1 standing in for two outside parties: an OpenAI-compatible embeddings
 * endpoint (`POST /v1/embeddings`, each text embedded as its letter counts, so anagrams are
 * identical and texts without shared letters orthogonal) and a user's scoring webhook.
 */
let stub: StubLlm;
let server: Server;
let base: string;
const sockets = new Set<Socket>();
const webhookBodies: Record<string, unknown>[] = [];

function letterCounts(text: string): number[] {
  const counts = new Array<number>(26).fill(0);
  for (const c of text.toLowerCase()) if (c >= "a" && c <= "z") counts[c.charCodeAt(0) - 97]++;
  return counts;
}

beforeAll(async () => {
  stub = await startStubLlm();
  server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "null");
    const reply = (status: number, payload: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(typeof payload === "string" ? payload : JSON.stringify(payload));
    };
    if (req.url === "/v1/embeddings") {
      const inputs: string[] = Array.isArray(body.input) ? body.input : [body.input];
      return reply(200, {
        object: "list",
        model: body.model,
        data: inputs.map((text, index) => ({ object: "embedding", index, embedding: letterCounts(text) })),
        usage: { prompt_tokens: inputs.length * 3, total_tokens: inputs.length * 3 },
      });
    }
    webhookBodies.push(body);
    if (req.url === "/score") return reply(200, { score: body.output === body.correct_answer ? 1 : 0.2, reason: "compared" });
    if (req.url === "/number") return reply(200, "0.75");
    if (req.url === "/bool") return reply(200, "false");
    if (req.url === "/prose") return reply(200, "looks fine to me");
    return reply(500, "webhook exploded");
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await stub.close();
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});

const evaluator = (key: string, parameters: Record<string, unknown>, outputs: unknown, inputs: Record<string, unknown> = {}, extra: Partial<InvokeRequest> = {}): InvokeRequest => ({
  uri: `svc:builtin:${key}:v0`,
  parameters,
  inputs,
  outputs,
  ...extra,
});

const evaluate = async (...args: Parameters<typeof evaluator>) => (await invokeWorkflow(evaluator(...args))).outputs;


const badParameter = async (key: string, parameters: Record<string, unknown>, name: string, outputs: unknown = "text") => {
  const error = await failure(evaluator(key, parameters, outputs, { correct_answer: "text" }));
  expect(error).toMatchObject({ statusCode: 400, type: expect.stringMatching(/invalid-parameters$/) });
  expect(error.message).toContain(name);
};

describe("dispatch", () => {
  it("serves every evaluator of the catalog, under either URI spelling", async () => {
    for (const { key } of EVALUATORS) {
      const error = await invokeWorkflow(evaluator(key, {}, null)).catch((e: WorkflowError) => e);
      // Reaching the handler (which then wants outputs or parameters) proves the dispatch.
      expect((error as WorkflowError).message ?? "").not.toMatch(/No hosted handler/);
    }
    expect(await evaluate("auto_exact_match", {}, "Paris", { correct_answer: "Paris" })).toEqual({ success: true });
    const agenta = await invokeWorkflow({ ...evaluator("auto_exact_match", {}, "Paris", { correct_answer: "Paris" }), uri: "agenta:builtin:auto_exact_match:v0" });
    expect(agenta.outputs).toEqual({ success: true });
    expect((await failure({ ...evaluator("auto_exact_match", {}, "x"), uri: "svc:builtin:auto_unknown:v0" })).statusCode).toBe(400);
  });

  it("records the evaluator's span under the workflow span, and streams only the result", async () => {
    const result = await invokeWorkflow(evaluator("auto_contains", { substring: "Paris" }, "It is Paris.", { country: "France" }));
    // The evaluator made no call: the workflow span alone (the handler has no span of its own).
    const [root] = result.spans;
    expect(result.spans).toHaveLength(1);
    expect(root).toMatchObject({ type: "workflow", name: "svc:builtin:auto_contains:v0", status: { code: "ok" }, attributes: { inputs: { country: "France" }, outputs: { success: true } } });

    const events = [];
    for await (const event of streamWorkflow(evaluator("auto_contains", { substring: "Paris" }, "Paris"))) events.push(event);
    expect(events).toHaveLength(1);
    expect((events[0] as { result: WorkflowResult }).result.outputs).toEqual({ success: true });
  });

  it("needs the application output and the expected answer", async () => {
    expect(await failure(evaluator("auto_contains", { substring: "a" }, undefined))).toMatchObject({ statusCode: 400, message: expect.stringMatching(/outputs/) });
    const missing = await failure(evaluator("auto_exact_match", { correct_answer_key: "expected" }, "Paris", { correct_answer: "Paris" }));
    expect(missing).toMatchObject({ statusCode: 400, type: expect.stringMatching(/invalid-inputs$/) });
    expect(missing.message).toContain("'expected'");
  });
});

describe("match evaluators", () => {
  it("auto_exact_match compares text with text and JSON with JSON", async () => {
    expect(await evaluate("auto_exact_match", {}, "Paris", { correct_answer: "Paris" })).toEqual({ success: true });
    expect(await evaluate("auto_exact_match", {}, "paris", { correct_answer: "Paris" })).toEqual({ success: false });
    expect(await evaluate("auto_exact_match", { correct_answer_key: "gold" }, { a: 1, b: [1, 2] }, { gold: { b: [1, 2], a: 1 } })).toEqual({ success: true });
    expect(await evaluate("auto_exact_match", {}, { a: 1 }, { correct_answer: '{"a": 1}' })).toEqual({ success: false });
    // The expected answer may come from the testcase instead of the inputs.
    expect(await evaluate("auto_exact_match", {}, "Lima", {}, { testcase: { id: "tc1", data: { correct_answer: "Lima" } } })).toEqual({ success: true });
  });

  it("auto_contains_json finds a JSON object inside text", async () => {
    expect(await evaluate("auto_contains_json", {}, 'Here you go: {"city": "Paris", "n": [1, 2]} — enjoy')).toEqual({ success: true });
    expect(await evaluate("auto_contains_json", {}, { city: "Paris" })).toEqual({ success: true });
    expect(await evaluate("auto_contains_json", {}, "{city: Paris}")).toEqual({ success: false });
    expect(await evaluate("auto_contains_json", {}, "no json here")).toEqual({ success: false });
  });

  it("auto_regex_test searches the output, honouring regex_should_match and Python spellings", async () => {
    const email = EVALUATORS.find((e) => e.key === "auto_regex_test")!.presets![0].parameters;
    expect(await evaluate("auto_regex_test", email, "Write to ada@example.org today")).toEqual({ success: true });
    expect(await evaluate("auto_regex_test", email, "No address")).toEqual({ success: false });
    expect(await evaluate("auto_regex_test", { regex_pattern: "^\\d{3}$", regex_should_match: false }, "12a")).toEqual({ success: true });
    expect(await evaluate("auto_regex_test", { regex_pattern: "^\\d{3}$", regex_should_match: false }, "123")).toEqual({ success: false });
    expect(await evaluate("auto_regex_test", { regex_pattern: "(?i)^(?P<word>hello) (?P=word)" }, "HELLO hello")).toEqual({ success: true });
    expect(await evaluate("auto_regex_test", { regex_pattern: '"city":' }, { city: "Paris" })).toEqual({ success: true });
  });

  it("auto_regex_test rejects a bad pattern and stops a catastrophic one", async () => {
    await badParameter("auto_regex_test", { regex_pattern: "(unclosed" }, "regex_pattern");
    await badParameter("auto_regex_test", {}, "regex_pattern");
    await badParameter("auto_regex_test", { regex_pattern: "a", regex_should_match: "yes" }, "regex_should_match");
    const started = Date.now();
    const error = await failure(evaluator("auto_regex_test", { regex_pattern: "^(a+)+$" }, `${"a".repeat(40)}b`, {}, { timeouts: { codeMs: 200 } }));
    expect(error.type).toMatch(/time-limit$/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("field_match_test compares one field of the JSON output", async () => {
    const params = { json_field: "country", correct_answer_key: "correct_answer" };
    expect(await evaluate("field_match_test", params, '{"country": "France", "city": "Paris"}', { correct_answer: "France" })).toEqual({ success: true });
    expect(await evaluate("field_match_test", params, { country: "Spain" }, { correct_answer: "France" })).toEqual({ success: false });
    expect(await evaluate("field_match_test", params, "not json", { correct_answer: "France" })).toEqual({ success: false });
    expect(await evaluate("field_match_test", params, { city: "Paris" }, { correct_answer: "France" })).toEqual({ success: false });
    expect(await evaluate("field_match_test", { json_field: "address.zip" }, { address: { zip: 75001 } }, { correct_answer: "75001" })).toEqual({ success: true });
    await badParameter("field_match_test", {}, "json_field");
  });

  it("auto_json_diff scores the share of matching leaves", async () => {
    const expected = { name: "Ada", age: 36, langs: ["en", "fr"] };
    expect(await evaluate("auto_json_diff", {}, JSON.stringify(expected), { correct_answer: expected })).toEqual({ score: 1, success: true });
    expect(await evaluate("auto_json_diff", {}, { name: "Ada", age: 37, langs: ["en", "de"] }, { correct_answer: JSON.stringify(expected) })).toEqual({ score: 0.5, success: true });
    expect(await evaluate("auto_json_diff", {}, { name: "Bob", age: 37 }, { correct_answer: expected })).toEqual({ score: 0, success: false });
    expect(await evaluate("auto_json_diff", { compare_schema_only: true }, { name: "Bob", age: 37, langs: ["x", "y"] }, { correct_answer: expected })).toEqual({ score: 1, success: true });
    expect(await evaluate("auto_json_diff", { case_insensitive_keys: true }, { NAME: "Ada", Age: 36 }, { correct_answer: { name: "Ada", age: 36 } })).toEqual({ score: 1, success: true });
    // predict_keys adds the output's own keys to those compared, as in the reference.
    expect(await evaluate("auto_json_diff", { predict_keys: true }, { name: "Ada", extra: 1 }, { correct_answer: { name: "Ada" } })).toEqual({ score: 0.5, success: true });
    expect(await evaluate("auto_json_diff", {}, "not json", { correct_answer: expected })).toEqual({ score: 0, success: false });
    expect(await failure(evaluator("auto_json_diff", {}, "{}", { correct_answer: "not json" }))).toMatchObject({ statusCode: 400 });
    await badParameter("auto_json_diff", { predict_keys: "no" }, "predict_keys", "{}");
  });

  it("starts with, ends with, contains", async () => {
    expect(await evaluate("auto_starts_with", { prefix: "yes", case_sensitive: false }, "Yes, it is.")).toEqual({ success: true });
    expect(await evaluate("auto_starts_with", { prefix: "yes" }, "Yes, it is.")).toEqual({ success: false });
    expect(await evaluate("auto_ends_with", { suffix: "." }, "A finished sentence.")).toEqual({ success: true });
    expect(await evaluate("auto_ends_with", { suffix: "." }, "An unfinished one")).toEqual({ success: false });
    expect(await evaluate("auto_contains", { substring: "source:", case_sensitive: false }, "Source: Wikipedia")).toEqual({ success: true });
    expect(await evaluate("auto_contains", { substring: "source:" }, "Source: Wikipedia")).toEqual({ success: false });
    await badParameter("auto_starts_with", {}, "prefix");
    await badParameter("auto_contains", { substring: 3 }, "substring");
  });

  it("contains any / all take a comma-separated list or a list", async () => {
    const refusal = { substrings: "I can't,I cannot,I'm unable", case_sensitive: false };
    expect(await evaluate("auto_contains_any", refusal, "Sorry, i cannot help.")).toEqual({ success: true });
    expect(await evaluate("auto_contains_any", refusal, "Sure, here it is.")).toEqual({ success: false });
    expect(await evaluate("auto_contains_all", { substrings: "email, phone" }, "Call the phone or send an email")).toEqual({ success: true });
    expect(await evaluate("auto_contains_all", { substrings: ["email", "phone"] }, "Send an email")).toEqual({ success: false });
    await badParameter("auto_contains_any", { substrings: " , " }, "substrings");
    await badParameter("auto_contains_all", { substrings: [1, 2] }, "substrings");
  });
});

describe("similarity evaluators", () => {
  it("auto_similarity_match scores word overlap against similarity_threshold", async () => {
    // Folded: {the, capital, is, paris} and {paris, is, the, capital, of, france} share 4 of 6 words.
    expect(await evaluate("auto_similarity_match", { similarity_threshold: 0.5, case_sensitive: false }, "The capital is Paris", { correct_answer: "Paris is the capital of France" }))
      .toEqual({ score: 4 / 6, success: true });
    expect(await evaluate("auto_similarity_match", { similarity_threshold: 0.9 }, "The capital is Paris", { correct_answer: "Paris is the capital of France" }))
      .toEqual({ score: 3 / 7, success: false }); // "The" ≠ "the" when case matters
    await badParameter("auto_similarity_match", { similarity_threshold: 2 }, "similarity_threshold");
  });

  it("auto_levenshtein_distance reports the distance and passes within the threshold", async () => {
    expect(await evaluate("auto_levenshtein_distance", {}, "kitten", { correct_answer: "sitting" })).toEqual({ score: 3 });
    expect(await evaluate("auto_levenshtein_distance", { threshold: 3 }, "kitten", { correct_answer: "sitting" })).toEqual({ score: 3, success: true });
    expect(await evaluate("auto_levenshtein_distance", { threshold: 2 }, "kitten", { correct_answer: "sitting" })).toEqual({ score: 3, success: false });
    await badParameter("auto_levenshtein_distance", { threshold: -1 }, "threshold");
  });

  it("auto_semantic_similarity embeds both texts with the provider and compares them", async () => {
    const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${base}/v1` };
    const same = await invokeWorkflow(evaluator("auto_semantic_similarity", {}, "Paris is the capital of France", { correct_answer: "The capital of France is Paris" }, { env }));
    expect(same.outputs).toMatchObject({ success: true });
    expect((same.outputs as { score: number }).score).toBeCloseTo(1, 10);
    expect(same.usage).toEqual({ prompt_tokens: 6, completion_tokens: 0, total_tokens: 6 });
    expect(same.spans[1]).toMatchObject({ name: "openai.embed", parent_id: same.spans[0].span_id, attributes: { model: "text-embedding-3-small" } });

    expect(await evaluate("auto_semantic_similarity", {}, "zzz", { correct_answer: "Paris" }, { env })).toEqual({ score: 0, success: false });
    expect(await failure(evaluator("auto_semantic_similarity", {}, "x", { correct_answer: "y" }, { env: {} }))).toMatchObject({ statusCode: 400, type: expect.stringMatching(/invalid-secrets$/) });
    expect((await failure(evaluator("auto_semantic_similarity", { embedding_model: "anthropic/claude-haiku-4-5" }, "x", { correct_answer: "y" }, { env: { ANTHROPIC_API_KEY: "k" } }))).message).toContain("embedding_model");
  });
});

describe("custom evaluators", () => {
  it("auto_custom_code_run runs evaluate() and applies the threshold", async () => {
    const code = EVALUATORS.find((e) => e.key === "auto_custom_code_run")!.parameters.properties as Record<string, { default: string }>;
    expect(await evaluate("auto_custom_code_run", { code: code.code.default }, "The capital is Paris.", { correct_answer: "Paris" })).toEqual({ score: 1, success: true });
    expect(await evaluate("auto_custom_code_run", {}, "The capital is Lyon.", { correct_answer: "Paris" })).toEqual({ score: 0, success: false });
    // The expected answer reaches the code even when only the testcase carries it.
    expect(await evaluate("auto_custom_code_run", {}, "Paris", {}, { testcase: { correct_answer: "Paris" } })).toEqual({ score: 1, success: true });
    const scored = "function evaluate(inputs, output, trace, parameters) { return output.length / 10; }";
    expect(await evaluate("auto_custom_code_run", { code: scored, threshold: 0.5 }, "abcdef")).toEqual({ score: 0.6, success: true });
    expect(await evaluate("auto_custom_code_run", { code: scored, threshold: 0.7 }, "abcdef")).toEqual({ score: 0.6, success: false });
    await badParameter("auto_custom_code_run", { code: scored, runtime: "python" }, "python");
    await badParameter("auto_custom_code_run", { code: scored, threshold: "high" }, "threshold");
  });

  it("auto_webhook_test posts output and expected answer and reads the score", async () => {
    const call = (path: string, outputs = "Paris") => evaluator("auto_webhook_test", { webhook_url: `${base}${path}` }, outputs, { question: "Capital?", correct_answer: "Paris" }, { allowPrivateHooks: true });
    const result = await invokeWorkflow(call("/score"));
    expect(result.outputs).toEqual({ score: 1, success: true });
    expect(webhookBodies.at(-1)).toEqual({ inputs: { question: "Capital?", correct_answer: "Paris" }, output: "Paris", correct_answer: "Paris" });
    expect(result.spans[1]).toMatchObject({ type: "hook", name: "webhook.evaluate", attributes: { status: 200 } });
    expect((await invokeWorkflow(call("/score", "Lyon"))).outputs).toEqual({ score: 0.2, success: false });
    expect((await invokeWorkflow(call("/number"))).outputs).toEqual({ score: 0.75, success: true });
    expect((await invokeWorkflow(call("/bool"))).outputs).toEqual({ score: 0, success: false });
    expect(await failure(call("/prose"))).toMatchObject({ statusCode: 502, message: expect.stringMatching(/without a score/) });
    expect(await failure(call("/broken"))).toMatchObject({ statusCode: 502, message: expect.stringMatching(/HTTP 500/) });
  });

  it("auto_webhook_test goes through the address guard", async () => {
    const refused = await failure(evaluator("auto_webhook_test", { webhook_url: `${base}/score` }, "Paris", { correct_answer: "Paris" }));
    expect(refused).toMatchObject({ statusCode: 400, type: expect.stringMatching(/forbidden-address$/) });
    await badParameter("auto_webhook_test", { webhook_url: "not a url" }, "webhook_url");
    await badParameter("auto_webhook_test", { webhook_url: "ftp://example.com/x" }, "webhook_url");
  });
});

describe("auto_ai_critique (LLM-as-a-judge) against the stub LLM", () => {
  const env = () => ({ OPENAI_API_KEY: "sk-judge", OPENAI_BASE_URL: stub.baseUrl });
  const judge = (parameters: Record<string, unknown>, outputs: unknown, inputs: Record<string, unknown> = {}) =>
    evaluator("auto_ai_critique", parameters, outputs, inputs, { env: env() });

  it("renders the prompt with inputs, output and expected answer, and asks for the score schema", async () => {
    const prompt_template = [
      { role: "system", content: "Grade the answer. Expected: {{correct_answer}}" },
      { role: "user", content: "Question: {{question}}\nInputs: {{inputs}}\nAnswer: {{outputs}}" },
    ];
    const result = await invokeWorkflow(judge({ prompt_template }, "Paris", { question: "Capital of France?", correct_answer: "Paris" }));
    const sent = stub.requests.at(-1)!;
    expect(sent.headers.authorization).toBe("Bearer sk-judge");
    expect(sent.body).toMatchObject({
      model: "gpt-4o-mini",
      messages: [
        { role: "system", content: "Grade the answer. Expected: Paris" },
        { role: "user", content: 'Question: Capital of France?\nInputs: {"question":"Capital of France?","correct_answer":"Paris"}\nAnswer: Paris' },
      ],
      response_format: { type: "json_schema", json_schema: { name: "score", strict: true } },
    });
    // The stub fills a number property with 42: read as the score, compared with the threshold.
    expect(result.outputs).toEqual({ score: 42, success: true });
    expect(result.usage?.total_tokens).toBeGreaterThan(0);
    const [root, call] = result.spans;
    expect(root).toMatchObject({ name: "svc:builtin:auto_ai_critique:v0", type: "workflow" });
    expect(call).toMatchObject({ name: "openai.chat", type: "chat", parent_id: root.span_id, attributes: { provider: "openai", model: "gpt-4o-mini", outputs: { score: 42 } } });
  });

  it("reads a plain-text score and passes at the threshold", async () => {
    // The stub answers with the last user message, here the output being graded.
    const echo = { prompt_template: [{ role: "user", content: "{{outputs}}" }], response_type: "text", threshold: 0.7 };
    expect(await evaluate("auto_ai_critique", echo, "0.8", {}, { env: env() })).toEqual({ score: 0.8, success: true });
    expect(await evaluate("auto_ai_critique", echo, "0.3", {}, { env: env() })).toEqual({ score: 0.3, success: false });
    expect(await evaluate("auto_ai_critique", echo, '{"score": 0.7}', {}, { env: env() })).toEqual({ score: 0.7, success: true });
    expect(stub.requests.at(-1)!.body.response_format).toBeUndefined();
  });

  it("uses the catalog's judge prompt by default", async () => {
    const result = await invokeWorkflow(judge({}, "Paris", { question: "Capital of France?" }));
    expect(result.outputs).toEqual({ score: 42, success: true });
    const messages = stub.requests.at(-1)!.body.messages;
    expect(messages[0].role).toBe("system");
    expect(messages[1].content).toBe('## Inputs\n{"question":"Capital of France?"}\n\n## Output to grade\nParis');
  });

  it("fails cleanly on an answer without a score, a missing variable, bad parameters, provider errors", async () => {
    const noScore = await failure(judge({ prompt_template: [{ role: "user", content: "{{outputs}}" }], response_type: "text" }, "I think it is good"));
    expect(noScore).toMatchObject({ statusCode: 502, message: expect.stringMatching(/without a score/) });
    // The provider call itself went fine; the evaluation failed.
    expect(noScore.trace?.spans.map((s) => s.status.code)).toEqual(["error", "ok"]);

    const missing = await failure(judge({ prompt_template: [{ role: "user", content: "{{rubric}}" }] }, "Paris"));
    expect(missing).toMatchObject({ statusCode: 400, message: expect.stringMatching(/rubric/) });

    await badParameter("auto_ai_critique", { prompt_template: "grade it" }, "prompt_template");
    await badParameter("auto_ai_critique", { response_type: "xml" }, "response_type");
    await badParameter("auto_ai_critique", { threshold: 5 }, "threshold");
    await badParameter("auto_ai_critique", { template_format: "handlebars" }, "template_format");

    expect(await failure(judge({ model: "openai/stub-429" }, "Paris"))).toMatchObject({ statusCode: 424 });
    expect(await failure({ ...judge({}, "Paris"), env: {} })).toMatchObject({ statusCode: 400, type: expect.stringMatching(/invalid-secrets$/) });
  });
});
