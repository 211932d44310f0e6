import { context, trace } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestProject, type TestServer } from "../support/server.ts";
import { attributes, exportRequest, nanos, randomHex, rejectedSpans, type TestSpan } from "./otlp-support.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await startTestServer();
  project = await server.project();
});
afterAll(async () => server.close());

/** Sends the spans as OTLP protobuf and answers the stored trace's spans by name. */
async function stored(spans: Omit<TestSpan, "traceId" | "start" | "end">[]): Promise<Record<string, any>> {
  const traceId = randomHex(16);
  const start = nanos(-5000);
  const res = await project.call("POST", "/otlp/v1/traces", exportRequest(spans.map((span, i) => ({
    ...span, traceId, start: start + BigInt(i) * 1_000_000n, end: start + 2_000_000_000n,
  }))), { "content-type": "application/x-protobuf" });
  expect(res.statusCode).toBe(200);
  expect(rejectedSpans(res.rawPayload)).toBe(0);
  return byName(await project.ok("POST", "/tracing/spans/query", {
    focus: "span", filter: { conditions: [{ field: "trace_id", operator: "is", value: traceId }] },
  }));
}
const byName = (answer: { spans: any[] }) => Object.fromEntries(answer.spans.map((span) => [span.span_name, span]));

describe("attribute conventions mapped onto ag.*", () => {
  it("reads OpenLLMetry (Traceloop) entity spans and gen_ai.prompt/completion messages, pricing the call", async () => {
    const root = randomHex(8);
    const spans = await stored([
      {
        spanId: root, name: "joke.workflow",
        attributes: attributes({
          "traceloop.span.kind": "workflow",
          "traceloop.entity.name": "joke",
          "traceloop.entity.input": JSON.stringify({ inputs: { topic: "cats" } }),
          "traceloop.entity.output": JSON.stringify({ outputs: { joke: "meow" } }),
        }),
      },
      {
        spanId: randomHex(8), parentSpanId: root, name: "openai.chat",
        attributes: attributes({
          "llm.request.type": "chat",
          "gen_ai.system": "openai",
          "gen_ai.request.model": "gpt-4o-mini",
          "gen_ai.response.model": "gpt-4o-mini-2024-07-18",
          "gen_ai.request.temperature": 0.5,
          "gen_ai.usage.prompt_tokens": 1000,
          "gen_ai.usage.completion_tokens": 500,
          "llm.usage.total_tokens": 1500,
          "gen_ai.prompt.0.role": "user",
          "gen_ai.prompt.0.content": "Tell a joke about cats",
          "gen_ai.completion.0.role": "assistant",
          "gen_ai.completion.0.content": "meow",
        }),
      },
    ]);
    const workflow = spans["joke.workflow"].attributes.ag;
    expect(spans["joke.workflow"].span_type).toBe("workflow");
    expect(workflow.data).toEqual({ inputs: { topic: "cats" }, outputs: { joke: "meow" } });
    const chat = spans["openai.chat"];
    expect(chat.span_type).toBe("chat");
    const ag = chat.attributes.ag;
    expect(ag.type).toEqual({ trace: "invocation", span: "chat" });
    expect(ag.data).toEqual({
      inputs: { prompt: [{ role: "user", content: "Tell a joke about cats" }] },
      outputs: { completion: [{ role: "assistant", content: "meow" }] },
    });
    expect(ag.meta).toEqual({
      system: "openai", request: { model: "gpt-4o-mini", temperature: 0.5 },
      response: { model: "gpt-4o-mini-2024-07-18" },
    });
    expect(ag.metrics.tokens.incremental).toEqual({ prompt: 1000, completion: 500, total: 1500 });
    expect(ag.metrics.costs.incremental.prompt).toBeCloseTo(0.00015, 12);
    expect(ag.metrics.costs.incremental.completion).toBeCloseTo(0.0003, 12);
    // The call's tokens and cost roll up to the workflow.
    expect(workflow.metrics.tokens.cumulative).toEqual({ prompt: 1000, completion: 500, total: 1500 });
    expect(workflow.metrics.costs.cumulative.total).toBeCloseTo(0.00045, 12);
  });

  it("reads OpenInference span kinds, messages with their tool calls, token counts, tools and identities", async () => {
    const root = randomHex(8);
    const spans = await stored([
      {
        spanId: root, name: "qa",
        attributes: attributes({
          "openinference.span.kind": "CHAIN",
          "input.value": JSON.stringify({ question: "2+2?" }),
          "input.mime_type": "application/json",
          "output.value": "4",
          "session.id": "session-oi",
          "user.id": "user-oi",
        }),
      },
      {
        spanId: randomHex(8), parentSpanId: root, name: "ChatCompletion",
        attributes: attributes({
          "openinference.span.kind": "LLM",
          "llm.model_name": "gpt-4o",
          "llm.provider": "openai",
          "llm.system": "openai",
          "input.value": "ignored on a chat span with messages",
          "llm.input_messages.0.message.role": "user",
          "llm.input_messages.0.message.content": "2+2?",
          "llm.output_messages.0.message.role": "assistant",
          "llm.output_messages.0.message.content": "4",
          "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "add",
          "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": '{"a":2,"b":2}',
          "llm.tools.0.tool.json_schema": JSON.stringify({ type: "function", function: { name: "add" } }),
          "llm.token_count.prompt": 2000,
          "llm.token_count.completion": 100,
          "llm.token_count.total": 2100,
        }),
      },
    ]);
    const qa = spans.qa;
    expect(qa).toMatchObject({ span_type: "chain", session_id: "session-oi", user_id: "user-oi" });
    expect(qa.attributes.ag.data).toEqual({ inputs: { question: "2+2?" }, outputs: "4" });
    expect(qa.attributes.ag.meta).toEqual({ input: { mime_type: "application/json" } });
    const llm = spans.ChatCompletion;
    expect(llm.span_type).toBe("chat");
    const ag = llm.attributes.ag;
    expect(ag.data).toEqual({
      inputs: {
        prompt: [{ role: "user", content: "2+2?" }], tools: [{ type: "function", function: { name: "add" } }],
      },
      outputs: {
        completion: [{
          role: "assistant", content: "4", tool_calls: [{ function: { name: "add", arguments: '{"a":2,"b":2}' } }],
        }],
      },
    });
    expect(ag.meta).toEqual({ response: { model: "gpt-4o" }, provider: "openai", system: "openai" });
    expect(ag.metrics.tokens.incremental).toEqual({ prompt: 2000, completion: 100, total: 2100 });
    expect(ag.metrics.costs.incremental.prompt).toBeCloseTo(0.005, 12);
    expect(ag.metrics.costs.incremental.completion).toBeCloseTo(0.001, 12);
    expect(qa.attributes.ag.metrics.costs.cumulative.total).toBeCloseTo(0.006, 12);
  });

  it("reads the Vercel AI SDK's ai.* spans: prompt, response, usage, settings, operation, telemetry ids", async () => {
    const root = randomHex(8);
    const spans = await stored([
      {
        spanId: root, name: "ai.generateText",
        attributes: attributes({
          "ai.operationId": "ai.generateText",
          "ai.prompt": JSON.stringify({ system: "Be brief.", prompt: "Tell a joke" }),
          "ai.response.text": "A joke.",
          "ai.usage.promptTokens": 10,
          "ai.usage.completionTokens": 5,
          "ai.telemetry.metadata.userId": "user-v",
          "ai.telemetry.metadata.sessionId": "session-v",
        }),
      },
      {
        spanId: randomHex(8), parentSpanId: root, name: "ai.generateText.doGenerate",
        attributes: attributes({
          "ai.operationId": "ai.generateText.doGenerate",
          "ai.model.id": "gpt-4o-mini",
          "ai.model.provider": "openai.chat",
          "ai.settings.temperature": 0.7,
          "ai.prompt.messages": JSON.stringify([{ role: "user", content: [{ type: "text", text: "Tell a joke" }] }]),
          "ai.response.text": "A joke.",
          "ai.response.finishReason": "stop",
          "ai.usage.inputTokens": 10,
          "ai.usage.outputTokens": 5,
          "gen_ai.system": "openai.chat",
          "gen_ai.request.model": "gpt-4o-mini",
          "gen_ai.response.model": "gpt-4o-mini-2024-07-18",
        }),
      },
      {
        spanId: randomHex(8), parentSpanId: root, name: "ai.toolCall",
        attributes: attributes({
          "ai.operationId": "ai.toolCall",
          "ai.toolCall.name": "weather",
          "ai.toolCall.args": JSON.stringify({ city: "Berlin" }),
          "ai.toolCall.result": JSON.stringify({ celsius: 22 }),
        }),
      },
    ]);
    const outer = spans["ai.generateText"];
    expect(outer).toMatchObject({ span_type: "task", user_id: "user-v", session_id: "session-v" });
    expect(outer.attributes.ag.data)
      .toEqual({ inputs: { system: "Be brief.", prompt: "Tell a joke" }, outputs: "A joke." });
    expect(outer.attributes.ag.metrics.tokens.incremental).toEqual({ prompt: 10, completion: 5 });
    expect(outer.attributes.ag.metrics.tokens.cumulative).toEqual({ prompt: 20, completion: 10, total: 0 });
    const inner = spans["ai.generateText.doGenerate"].attributes.ag;
    expect(inner.type.span).toBe("task");
    expect(inner.data).toEqual({
      inputs: { prompt: [{ role: "user", content: [{ type: "text", text: "Tell a joke" }] }] }, outputs: "A joke.",
    });
    expect(inner.meta).toEqual({
      system: "openai.chat", request: { model: "gpt-4o-mini", temperature: 0.7 },
      response: { model: "gpt-4o-mini-2024-07-18", finish_reasons: ["stop"] },
    });
    // A task span is not priced, as in the reference: only model-call span types are.
    expect(inner.metrics.costs).toEqual({});
    const tool = spans["ai.toolCall"];
    expect(tool.span_type).toBe("tool");
    expect(tool.attributes.ag.data)
      .toEqual({ inputs: { name: "weather", args: { city: "Berlin" } }, outputs: { celsius: 22 } });
  });

  it("lets a span's own ag.* attributes win over a convention's", async () => {
    const spans = await stored([{
      spanId: randomHex(8), name: "both",
      attributes: attributes({
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "gpt-4o",
        "ag.meta.request.model": "mine",
        "ag.type.node": "workflow",
      }),
    }]);
    expect(spans.both.span_type).toBe("workflow");
    expect(spans.both.attributes.ag.meta.request.model).toBe("mine");
  });
});

describe("the GenAI semantic conventions through a real OpenTelemetry exporter", () => {
  it("stores a chat and a tool span with messages, usage, costs and the conversation as the session", async () => {
    await server.app.listen({ port: 0, host: "127.0.0.1" });
    const base = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
    const exporter = new OTLPTraceExporter({
      url: `${base}/api/otlp/v1/traces`, headers: { Authorization: `ApiKey ${project.key}` },
    });
    const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] });
    const tracer = provider.getTracer("genai-test");
    const agent = tracer.startSpan("invoke_agent helper", {
      attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": "conversation-1" },
    });
    const within = trace.setSpan(context.active(), agent);
    const chat = tracer.startSpan("chat claude-3-5-haiku", {
      attributes: {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "anthropic",
        "gen_ai.system": "anthropic",
        "gen_ai.request.model": "claude-3-5-haiku",
        "gen_ai.response.model": "claude-3-5-haiku-20241022",
        "gen_ai.usage.input_tokens": 1000,
        "gen_ai.usage.output_tokens": 1000,
        "gen_ai.input.messages": JSON.stringify([{ role: "user", parts: [{ type: "text", content: "Weather?" }] }]),
        "gen_ai.output.messages": JSON.stringify([{
          role: "assistant", finish_reason: "tool_call",
          parts: [
            { type: "text", content: "Looking." },
            { type: "tool_call", id: "c1", name: "weather", arguments: { city: "Oslo" } },
          ],
        }]),
      },
    }, within);
    chat.end();
    const tool = tracer.startSpan("execute_tool weather", {
      attributes: {
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "weather",
        "gen_ai.tool.call.arguments": '{"city":"Oslo"}', "gen_ai.tool.call.result": '{"celsius":3}',
      },
    }, within);
    tool.end();
    agent.end();
    await provider.forceFlush();
    await provider.shutdown();

    const traceId = agent.spanContext().traceId;
    const spans = byName(await project.ok("POST", "/tracing/spans/query", {
      focus: "span", filter: { conditions: [{ field: "trace_id", operator: "is", value: traceId }] },
    }));
    expect(spans["invoke_agent helper"]).toMatchObject({ span_type: "agent", session_id: "conversation-1" });
    const llm = spans["chat claude-3-5-haiku"];
    expect(llm.span_type).toBe("chat");
    const ag = llm.attributes.ag;
    expect(ag.data).toEqual({
      inputs: { prompt: [{ role: "user", content: "Weather?" }] },
      outputs: {
        completion: [{
          role: "assistant", content: "Looking.", finish_reason: "tool_call",
          tool_calls: [{ id: "c1", type: "function", function: { name: "weather", arguments: { city: "Oslo" } } }],
        }],
      },
    });
    expect(ag.meta).toMatchObject({
      system: "anthropic", provider: { name: "anthropic" }, request: { model: "claude-3-5-haiku" },
      response: { model: "claude-3-5-haiku-20241022" },
    });
    expect(ag.metrics.tokens.incremental).toEqual({ prompt: 1000, completion: 1000, total: 2000 });
    expect(ag.metrics.costs.incremental.prompt).toBeCloseTo(0.0008, 12);
    expect(ag.metrics.costs.incremental.completion).toBeCloseTo(0.004, 12);
    const toolSpan = spans["execute_tool weather"];
    expect(toolSpan.span_type).toBe("tool");
    expect(toolSpan.attributes.ag.data)
      .toEqual({ inputs: { name: "weather", arguments: { city: "Oslo" } }, outputs: { celsius: 3 } });
  });
});
