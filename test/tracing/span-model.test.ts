import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestProject, type TestServer } from "../support/server.ts";
import { attributes, exportRequest, nanos, randomHex, rejectedSpans } from "./otlp-support.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await startTestServer();
  project = await server.project();
});
afterAll(async () => server.close());

async function send(body: Buffer): Promise<void> {
  const res = await project.call("POST", "/otlp/v1/traces", body, { "content-type": "application/x-protobuf" });
  expect(res.statusCode).toBe(200);
  expect(rejectedSpans(res.rawPayload)).toBe(0);
}

describe("the span model", () => {
  it("stores ag.* attributes as the reference does: references, metrics, JSON values, nesting, roll-ups", async () => {
    const traceId = randomHex(16);
    const rootId = randomHex(8);
    const appId = randomUUID();
    const variantId = randomUUID();
    const start = nanos(-1000);
    await send(exportRequest([
      {
        traceId, spanId: rootId, name: "agent", kind: 2, start, end: start + 250_000_000n,
        attributes: attributes({
          "ag.type.node": "workflow",
          "ag.refs.application.id": appId,
          "ag.refs.application.slug": "my-app",
          "ag.refs.variant.id": variantId,
          "ag.data.inputs": '@ag.type=json:{"question":"hi"}',
          "ag.data.outputs": '@ag.type=json:{"__default__":"answer"}',
          "ag.meta.configuration": '@ag.type=json:{"temperature":0.2}',
          "ag.session.id": "session-7",
          "ag.user.id": "user-7",
          "ag.custom": "oops",
          "some.dotted.key": "x",
          "list.0": "a",
          "list.1": "b",
        }),
        events: [
          { name: "exception", timeUnixNano: start + 1000n, attributes: attributes({ "exception.message": "boom" }) },
        ],
      },
      {
        traceId, spanId: randomHex(8), parentSpanId: rootId, name: "chat", kind: 3, start: start + 1_000_000n,
        end: start + 200_000_000n,
        attributes: attributes({
          "ag.type.node": "chat",
          "ag.meta.response.model": "gpt-4o-mini",
          "ag.metrics.unit.tokens.prompt": 1000,
          "ag.metrics.unit.tokens.completion": 500,
          "ag.metrics.unit.tokens.total": 1500,
          "ag.metrics.acc.duration.total": 99,
        }),
      },
    ]));

    const got = await project.ok("GET", `/tracing/traces/${traceId}`);
    expect(got.count).toBe(1);
    const root = got.traces[traceId].spans.agent;
    expect(root).toMatchObject({
      span_id: rootId, trace_type: "invocation", span_type: "workflow", span_kind: "SPAN_KIND_SERVER",
      session_id: "session-7", user_id: "user-7",
      references: [
        { id: appId, slug: "my-app", attributes: { key: "application" } },
        { id: variantId, attributes: { key: "application_variant" } },
      ],
    });
    const ag = root.attributes.ag;
    expect(ag.type).toEqual({ trace: "invocation", span: "workflow" });
    expect(ag.data).toEqual({ inputs: { question: "hi" }, outputs: "answer", parameters: { temperature: 0.2 } });
    expect(ag.references.application).toEqual({ id: appId, slug: "my-app" });
    expect(ag.session).toEqual({ id: "session-7" });
    expect(ag.unsupported).toEqual({ custom: "oops" });
    expect(root.attributes.some).toEqual({ dotted: { key: "x" } });
    expect(root.attributes.list).toEqual(["a", "b"]);
    expect(ag.metrics.duration.cumulative).toBe(250);
    expect(ag.metrics.errors).toEqual({ incremental: 1, cumulative: 1 });
    expect(ag.metrics.tokens.cumulative).toEqual({ prompt: 1000, completion: 500, total: 1500 });
    expect(ag.metrics.costs.cumulative.prompt).toBeCloseTo(0.00015, 12);
    expect(ag.metrics.costs.cumulative.completion).toBeCloseTo(0.0003, 12);

    const chat = root.spans.chat;
    expect(chat).toMatchObject({ span_type: "chat", trace_type: "invocation", parent_id: rootId });
    expect(chat.session_id).toBeUndefined();
    const metrics = chat.attributes.ag.metrics;
    expect(metrics.tokens.incremental).toEqual({ prompt: 1000, completion: 500, total: 1500 });
    expect(metrics.costs.incremental.total).toBeCloseTo(0.00045, 12);
    expect(metrics.duration.cumulative).toBe(199);
    expect(metrics).not.toHaveProperty("acc");
    expect(chat.attributes.ag.meta).toEqual({ response: { model: "gpt-4o-mini" } });
  });

  it("parses JSON text in the dict-valued data fields only, as the reference's acceptance test expects", async () => {
    const traceId = randomHex(16);
    await send(exportRequest([{
      traceId, spanId: randomHex(8), name: "otlp-best-effort-e2e", kind: 2, start: nanos(), end: nanos(100),
      attributes: attributes({
        "ag.type.trace": "invocation",
        "ag.type.span": "task",
        "ag.data.inputs": '{"messages":[{"role":"user","content":"hello"}]}',
        "ag.data.parameters": '{"temperature":0.2}',
        "ag.data.internals": '{"debug":true}',
        "ag.data.outputs": '{"content":"leave-string"}',
      }),
    }]));
    const tree = (await project.ok("GET", `/tracing/traces/${traceId}`)).traces[traceId];
    const data = Object.values<any>(tree.spans)[0].attributes.ag.data;
    expect(data.inputs).toEqual({ messages: [{ role: "user", content: "hello" }] });
    expect(data.parameters).toEqual({ temperature: 0.2 });
    expect(data.internals).toEqual({ debug: true });
    expect(data.outputs).toBe('{"content":"leave-string"}');
  });

  it("types a trace whose spans have links as an annotation", async () => {
    const traceId = randomHex(16);
    const linked = { traceId: randomHex(16), spanId: randomHex(8) };
    await send(exportRequest([
      { traceId, spanId: randomHex(8), name: "score", start: nanos(), end: nanos(1), links: [linked] },
    ]));
    const span = (await project.ok("GET", `/tracing/traces/${traceId}`)).traces[traceId].spans.score;
    expect(span.trace_type).toBe("annotation");
    expect(span.links).toEqual([{ trace_id: linked.traceId, span_id: linked.spanId, attributes: {} }]);
  });

  it("keeps keys named __proto__ as data and never changes a prototype", async () => {
    const traceId = randomHex(16);
    await send(exportRequest([{
      traceId, spanId: randomHex(8), name: "hostile", start: nanos(), end: nanos(1),
      attributes: attributes({ "__proto__.polluted": "yes", "ag.data.__proto__": "x", "ag.__proto__.polluted": "yes" }),
    }]));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const span = (await project.ok("GET", `/tracing/traces/${traceId}`)).traces[traceId].spans.hostile;
    expect(Object.getOwnPropertyDescriptor(span.attributes, "__proto__")?.value).toEqual({ polluted: "yes" });
    expect(Object.getOwnPropertyDescriptor(span.attributes.ag.unsupported.data, "__proto__")?.value).toBe("x");
  });

  it("stores names and ids holding U+0000, and leaves out a span nested past 128 levels", async () => {
    const traceId = randomHex(16);
    const deep = "[".repeat(200) + "]".repeat(200);
    const body = exportRequest([
      {
        traceId, spanId: randomHex(8), name: "nul\u0000name", start: nanos(), end: nanos(1),
        attributes: attributes({ "ag.session.id": "s\u00001", "ag.data.outputs": "a\u0000b" }),
      },
      { traceId: randomHex(16), spanId: randomHex(8), name: "deep", start: nanos(), end: nanos(1),
        attributes: attributes({ "ag.data.inputs.x": `@ag.type=json:${deep}` }) },
    ]);
    const res = await project.call("POST", "/otlp/v1/traces", body, { "content-type": "application/x-protobuf" });
    expect(res.statusCode).toBe(200);
    expect(rejectedSpans(res.rawPayload)).toBe(1);
    const span = (await project.ok("GET", `/tracing/traces/${traceId}`)).traces[traceId].spans.nulname;
    expect(span.session_id).toBe("s1");
    expect(span.attributes.ag.data.outputs).toBe("a\u0000b");
  });

  it("replaces a span sent again under the same ids", async () => {
    const traceId = randomHex(16);
    const spanId = randomHex(8);
    const span = (output: string) => ({
      traceId, spanId, name: "step", start: nanos(), end: nanos(1),
      attributes: attributes({ "ag.data.outputs": output }),
    });
    await send(exportRequest([span("first")]));
    await send(exportRequest([span("second")]));
    const got = await project.ok("POST", "/tracing/spans/query", {
      focus: "span", filter: { conditions: [{ field: "trace_id", value: traceId }] },
    });
    expect(got.count).toBe(1);
    expect(got.spans[0].attributes.ag.data.outputs).toBe("second");
  });
});
