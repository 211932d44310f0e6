import { describe, expect, it } from "vitest";
import { envelopeHeaders, failureEnvelope, INVOKE_VERSION, successEnvelope } from "../../src/runtime/envelope.ts";
import { ERROR_TYPES, invalidSecrets, WorkflowError } from "../../src/runtime/errors.ts";
import type { StreamEvent } from "../../src/runtime/invoke.ts";
import { invokeWorkflow, streamWorkflow } from "../../src/runtime/invoke.ts";
import { encodeSse } from "../../src/runtime/sse.ts";
import { newSpanId, newTraceId } from "../../src/runtime/trace.ts";

const ids = { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331" };

describe("invoke envelope", () => {
  it("builds the success envelope and headers", () => {
    expect(successEnvelope("Paris", ids)).toEqual({
      version: "2025.07.14",
      status: { code: 200, message: "Success" },
      trace_id: ids.traceId,
      span_id: ids.spanId,
      data: { outputs: "Paris" },
    });
    expect(envelopeHeaders(ids)).toEqual({
      "x-ag-version": INVOKE_VERSION,
      "x-ag-trace-id": ids.traceId,
      "x-ag-span-id": ids.spanId,
      traceparent: `00-${ids.traceId}-${ids.spanId}-01`,
    });
  });

  it("builds the failure envelope without data, from the error's own trace", async () => {
    expect(failureEnvelope(invalidSecrets("No API key for provider 'openai'"), ids)).toEqual({
      version: "2025.07.14",
      status: { code: 400, type: "https://docs.tessera.dev/errors#v0:schemas:invalid-secrets", message: "No API key for provider 'openai'" },
      trace_id: ids.traceId,
      span_id: ids.spanId,
    });
    let error: unknown;
    try {
      await invokeWorkflow({ uri: "svc:custom:code:v0", script: "function run() { throw new Error('x'); }", inputs: {}, parameters: {} });
    } catch (e) {
      error = e;
    }
    const envelope = failureEnvelope(error);
    expect(envelope.status).toMatchObject({ code: 422, type: ERROR_TYPES.codeFailed });
    expect(envelope.trace_id).toBe((error as WorkflowError).trace!.traceId);
    expect(envelope.span_id).toBe((error as WorkflowError).trace!.spanId);
  });

  it("never leaks an unexpected error's details", () => {
    const envelope = failureEnvelope(new Error("password=hunter2 at db.ts:12"), ids);
    expect(envelope.status).toEqual({ code: 500, type: ERROR_TYPES.internal, message: "The runtime failed unexpectedly" });
  });

  it("uses W3C trace ids", () => {
    expect(newTraceId()).toMatch(/^[0-9a-f]{32}$/);
    expect(newSpanId()).toMatch(/^[0-9a-f]{16}$/);
    expect(newTraceId()).not.toBe(newTraceId());
  });

  it("lets the caller fix the trace ids up front", async () => {
    const result = await invokeWorkflow({ uri: "svc:custom:code:v0", script: "const run = () => 1;", inputs: {}, parameters: {}, traceIds: ids });
    expect(result).toMatchObject({ traceId: ids.traceId, spanId: ids.spanId, outputs: 1 });
    expect(result.spans.every((s) => s.trace_id === ids.traceId)).toBe(true);
  });
});

describe("SSE encoding", () => {
  async function collect(events: AsyncIterable<string>): Promise<string> {
    let text = "";
    for await (const chunk of events) text += chunk;
    return text;
  }

  it("writes delta events, then done with the ids, outputs and usage", async () => {
    async function* events(): AsyncGenerator<StreamEvent> {
      yield { type: "delta", text: "Par" };
      yield { type: "delta", text: "is\n" };
      yield { type: "done", result: { outputs: "Paris\n", usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 }, ...ids, spans: [] } };
    }
    expect(await collect(encodeSse(events()))).toBe(
      'event: delta\ndata: {"text":"Par"}\n\n' +
        'event: delta\ndata: {"text":"is\\n"}\n\n' +
        `event: done\ndata: {"trace_id":"${ids.traceId}","span_id":"${ids.spanId}","outputs":"Paris\\n","usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}\n\n`,
    );
  });

  it("ends with an error event carrying the failure envelope", async () => {
    const text = await collect(encodeSse(streamWorkflow({ uri: "svc:custom:code:v0", script: "function run() { while (true) {} }", inputs: {}, parameters: {}, timeouts: { codeMs: 50 } })));
    const match = /^event: error\ndata: (.*)\n\n$/.exec(text);
    expect(match).not.toBeNull();
    const envelope = JSON.parse(match![1]);
    expect(envelope).toMatchObject({ version: INVOKE_VERSION, status: { code: 408, type: ERROR_TYPES.codeTimeLimit } });
    expect(envelope.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(envelope).not.toHaveProperty("data");
  });

  it("streams hooks and code as a single done event", async () => {
    const text = await collect(encodeSse(streamWorkflow({ uri: "svc:custom:code:v0", script: "function run(i) { return i.x * 2; }", inputs: { x: 21 }, parameters: {}, traceIds: ids })));
    expect(text).toBe(`event: done\ndata: {"trace_id":"${ids.traceId}","span_id":"${ids.spanId}","outputs":42}\n\n`);
  });
});

describe("WorkflowError", () => {
  it("is an HttpError with a status, a type and a message", () => {
    const error = new WorkflowError(424, ERROR_TYPES.rateLimited, "slow down");
    expect(error).toMatchObject({ statusCode: 424, detail: "slow down", type: ERROR_TYPES.rateLimited, message: "slow down" });
  });
});
