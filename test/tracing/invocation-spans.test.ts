import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Span as RuntimeSpan } from "../../src/runtime/trace.ts";
import type { InvocationRecord } from "../../src/traces/traces.ts";
import { invocationSpans } from "../../src/tracing/invocation-spans.ts";
import { normalisedInvocationSpans } from "../support/normalised-invocation-spans.ts";
import { randomHex } from "./otlp-support.ts";

/*
 * Invocation spans are built as stored directly; sent through the OTLP normaliser and the batch roll-up as the
 * reference's SDK would send them, they must come out the same, to the JSON text that is stored.
 */

const at = (ms: number) => new Date(Date.parse("2026-03-04T05:06:07.000Z") + ms).toISOString();

function runtimeSpan(
  traceId: string, id: string, parent: string | null, name: string, type: RuntimeSpan["type"],
  attributes: Record<string, unknown>, rest: Partial<RuntimeSpan> = {},
): RuntimeSpan {
  return {
    trace_id: traceId, span_id: id, parent_id: parent, name, type, start_time: at(0), end_time: at(12),
    duration_ms: 12.345, status: { code: "ok" }, attributes, ...rest,
  };
}

/** An invocation as the runtime records it: a root span and, under it, the call the handler made. */
function invocation(
  uri: string, call: { name: string; type: RuntimeSpan["type"]; attributes: Record<string, unknown> } | null,
  record: Partial<InvocationRecord> = {}, callRest: Partial<RuntimeSpan> = {},
): InvocationRecord {
  const [traceId, rootId, callId] = [randomHex(16), randomHex(8), randomHex(8)];
  const inputs = record.inputs ?? { country: "Chile", nested: { list: [1, { deep: true }] } };
  const parameters = { prompt: { messages: [{ role: "user", content: "Capital of {{country}}?" }] } };
  const spans = [runtimeSpan(traceId, rootId, null, uri, "workflow", { inputs, parameters, uri }, { end_time: at(40) })];
  if (call) spans.push(runtimeSpan(traceId, callId, rootId, call.name, call.type, call.attributes, callRest));
  return {
    traceId, spanId: rootId, references: null, inputs, outputs: "Santiago", status: { code: 200 },
    latencyMs: 40.123456, usage: null, spans, ...record,
  };
}

const usage = { prompt_tokens: 20, completion_tokens: 4, total_tokens: 24 };
const messages = [{ role: "user", content: "Capital of Chile?" }];
const chatCall = (model: string, extra: Record<string, unknown> = {}) => ({
  name: "openai.chat", type: "chat" as const,
  attributes: {
    provider: "openai", model, settings: { temperature: 0 }, prompt: messages, template_format: "curly",
    outputs: "Santiago", usage, finish_reason: "stop", ...extra,
  },
});

const references = {
  application: { id: crypto.randomUUID(), slug: "capitals", version: "3" },
  application_variant: { id: crypto.randomUUID().replaceAll("-", "").toUpperCase(), slug: "not safe!", version: 0 },
  testcase: { id: "not-a-uuid" },
  testset: { slug: "", version: "" },
  environment: { slug: "production" },
  unknown_kind: { id: crypto.randomUUID() },
  evaluator: "not an object",
};

const CASES: [string, () => InvocationRecord][] = [
  ["a completion, with usage, references and a session", () =>
    invocation("agenta:builtin:completion:v0", chatCall("gpt-4o-mini"), { usage, references, sessionId: "s-1" })],
  ["a chat with a model of no known price, no usage", () =>
    invocation("agenta:builtin:chat:v0", chatCall("some-local-model", { usage: undefined }), { usage: null })],
  ["a chat whose provider failed", () =>
    invocation("agenta:builtin:chat:v0", chatCall("gpt-4o-mini", { outputs: undefined, usage: undefined }), {
      outputs: null, status: { code: 502, type: "provider", message: "upstream said no" },
    }, { status: { code: "error", message: "upstream said no" }, end_time: null, duration_ms: 3.2 })],
  ["a hook", () =>
    invocation("agenta:custom:hook:v0", {
      name: "hook.invoke", type: "hook", attributes: { url: "https://hooks.example/x", status: 200, outputs: { a: 1 } },
    }, { outputs: { a: 1 } })],
  ["a hook that timed out, its span never ended", () =>
    invocation("agenta:custom:hook:v0", { name: "hook.invoke", type: "hook", attributes: { url: "x" } }, {
      outputs: null, status: { code: 504, message: "hook timed out" },
    }, { end_time: null, duration_ms: null, status: { code: "error", message: "hook timed out" } })],
  ["code", () =>
    invocation("agenta:custom:code:v0", {
      name: "code.run", type: "code", attributes: { entry: "main", outputs: [1, 2, 3] },
    }, { outputs: [1, 2, 3], inputs: "{\"as\": \"a JSON text\"}" })],
  ["code with inputs that are no object", () =>
    invocation("agenta:custom:code:v0", { name: "code.run", type: "code", attributes: { entry: "main" } }, {
      inputs: [1, 2], status: { code: 400, type: "invalid" }, outputs: null,
    })],
  ["an evaluator with no call, usage on the record only", () =>
    invocation("agenta:builtin:auto_exact_match:v0", null, { outputs: { success: true }, usage })],
  ["an AI critique evaluator (a chat under it)", () =>
    invocation("agenta:builtin:auto_ai_critique:v0", chatCall("gpt-4o", { outputs: { score: 0.5 } }), {
      outputs: { score: 0.5 }, usage,
    })],
  ["a failure before the runtime recorded anything", () => ({
    traceId: randomHex(16), spanId: randomHex(8), references: null, inputs: { q: 1 }, outputs: null,
    status: { code: 422, message: "bad inputs" }, latencyMs: 1.5, usage: null, spans: [],
  })],
  ["no latency", () => invocation("agenta:builtin:completion:v0", chatCall("gpt-4o-mini"), { latencyMs: 0 })],
];

describe("invocation spans", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-03-04T05:07:00.123Z"));
  });
  afterEach(() => vi.useRealTimers());

  for (const [name, make] of CASES) {
    it(`are what the normaliser stores for ${name}`, () => {
      const record = make();
      const direct = invocationSpans(record);
      const normalised = normalisedInvocationSpans(structuredClone(record));
      expect(direct).toEqual(normalised);
      expect(JSON.stringify(direct)).toBe(JSON.stringify(normalised));
    });
  }

  it("put the model call right under the root, with costs summed up to it", () => {
    const spans = invocationSpans(CASES[0]![1]());
    expect(spans.map((s) => s.span_type)).toEqual(["workflow", "chat"]);
    expect(spans[1]!.parent_id).toBe(spans[0]!.span_id);
    const [root, chat] = spans.map((s) => s.attributes.ag.metrics);
    expect(chat.costs.incremental.total).toBeGreaterThan(0);
    expect(root.costs.cumulative).toEqual(chat.costs.cumulative);
    expect(root.tokens).toEqual({ cumulative: { prompt: 20, completion: 4, total: 24 } });
    expect(spans[0]!.session_id).toBe("s-1");
  });

  it("refuse attributes nested past the storable depth, as the normaliser does", () => {
    let deep: unknown = "leaf";
    for (let i = 0; i < 200; i++) deep = { deep };
    const record = invocation("agenta:custom:hook:v0", null, { outputs: deep });
    expect(() => invocationSpans(record)).toThrow(/nested deeper/);
    expect(() => normalisedInvocationSpans(record)).toThrow(/nested deeper/);
  });
});
