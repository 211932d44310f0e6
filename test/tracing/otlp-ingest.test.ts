import { context, trace } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { CompressionAlgorithm } from "@opentelemetry/otlp-exporter-base";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { AddressInfo } from "node:net";
import { gzipSync, deflateSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestProject, type TestServer } from "../support/server.ts";
import { attributes, exportRequest, nanos, randomHex, rejectedSpans } from "./otlp-support.ts";

let server: TestServer;
let project: TestProject;
let base: string;

beforeAll(async () => {
  server = await startTestServer();
  project = await server.project();
  await server.app.listen({ port: 0, host: "127.0.0.1" });
  base = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => server.close());

const protobuf = { "content-type": "application/x-protobuf" };

/**
 * Sends a parent and a child span through a real OpenTelemetry SDK and exporter, in one batch (sums roll up within
 * a batch); returns the trace id.
 */
async function sendWithSdk(compression: CompressionAlgorithm): Promise<string> {
  const exporter = new OTLPTraceExporter({
    url: `${base}/api/otlp/v1/traces`, headers: { Authorization: `ApiKey ${project.key}` }, compression,
  });
  const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] });
  const tracer = provider.getTracer("tessera-test");
  const parent = tracer.startSpan("pipeline", {
    attributes: { "ag.type.node": "workflow", "ag.data.inputs.country": "France", "ag.session.id": "session-1" },
  });
  const child = tracer.startSpan("llm-call", {
    attributes: { "ag.type.node": "chat", "ag.metrics.unit.tokens.prompt": 12, "ag.metrics.unit.tokens.completion": 3 },
  }, trace.setSpan(context.active(), parent));
  child.end();
  parent.end();
  await provider.forceFlush();
  await provider.shutdown();
  return parent.spanContext().traceId;
}

describe("OTLP ingestion", () => {
  it("answers ready to a GET", async () => {
    expect(await project.ok("GET", "/otlp/v1/traces")).toEqual({ status: "ready" });
  });

  it("stores what a real OpenTelemetry exporter sends, readable by trace id and by a filtered query", async () => {
    const traceId = await sendWithSdk(CompressionAlgorithm.NONE);
    const got = await project.ok("GET", `/tracing/traces/${traceId}`);
    expect(got.count).toBe(1);
    const root = got.traces[traceId].spans.pipeline;
    expect(root).toMatchObject({
      trace_id: traceId, span_name: "pipeline", span_type: "workflow", trace_type: "invocation",
      session_id: "session-1",
      attributes: { ag: { data: { inputs: { country: "France" } }, session: { id: "session-1" } } },
    });
    const child = root.spans["llm-call"];
    expect(child).toMatchObject({ span_type: "chat", parent_id: root.span_id });
    expect(child.attributes.ag.metrics.tokens.incremental).toEqual({ prompt: 12, completion: 3 });
    // Tokens rolled up to the parent.
    expect(root.attributes.ag.metrics.tokens.cumulative).toEqual({ prompt: 12, completion: 3, total: 0 });

    const query = await project.ok("POST", "/tracing/spans/query", {
      focus: "span",
      filter: { conditions: [
        { field: "attributes", key: "ag.data.inputs.country", operator: "is", value: "France" },
        { field: "trace_id", operator: "is", value: traceId },
      ] },
    });
    expect(query.count).toBe(1);
    expect(query.spans[0]).toMatchObject({ span_name: "pipeline", trace_id: traceId });
  });

  it("inflates gzip-compressed protobuf from the exporter, and zlib by its magic bytes", async () => {
    const traceId = await sendWithSdk(CompressionAlgorithm.GZIP);
    expect((await project.ok("GET", `/tracing/traces/${traceId}`)).count).toBe(1);

    const zlibTrace = randomHex(16);
    const span = { traceId: zlibTrace, spanId: randomHex(8), name: "z", start: nanos(), end: nanos(5) };
    const body = deflateSync(exportRequest([span]));
    const res = await project.call("POST", "/otlp/v1/traces", body, protobuf);
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toMatch(/application\/x-protobuf/);
    expect((await project.ok("GET", `/tracing/traces/${zlibTrace}`)).count).toBe(1);
  });

  it("takes OTLP/JSON, plain or gzipped, with hex ids", async () => {
    const traceId = randomHex(16);
    const spanId = randomHex(8);
    const request = {
      resourceSpans: [{ scopeSpans: [{ spans: [{
        traceId, spanId, name: "json-span", kind: 2,
        startTimeUnixNano: String(nanos()), endTimeUnixNano: String(nanos(20)),
        attributes: [
          { key: "ag.data.outputs", value: { stringValue: "done" } }, { key: "n", value: { intValue: "7" } },
        ],
        status: { code: 1 },
      }] }] }],
    };
    const json = { "content-type": "application/json" };
    const plain = await project.call("POST", "/otlp/v1/traces", JSON.stringify(request), json);
    expect(plain.statusCode).toBe(200);
    expect(plain.json()).toEqual({});
    const got = await project.ok("GET", `/tracing/traces/${traceId}`);
    expect(got.traces[traceId].spans["json-span"]).toMatchObject({
      span_id: spanId, span_kind: "SPAN_KIND_SERVER", status_code: "STATUS_CODE_OK",
      attributes: { n: 7, ag: { data: { outputs: "done" } } },
    });

    const other = randomHex(16);
    request.resourceSpans[0]!.scopeSpans[0]!.spans[0]!.traceId = other;
    const gz = await project.call("POST", "/otlp/v1/traces", gzipSync(JSON.stringify(request)), json);
    expect(gz.statusCode).toBe(200);
    expect((await project.ok("GET", `/tracing/traces/${other}`)).count).toBe(1);
  });

  it("keeps the readable spans of a batch and counts the malformed one", async () => {
    const good = randomHex(16);
    const bad = randomHex(16);
    const body = exportRequest([
      { traceId: good, spanId: randomHex(8), name: "fine", kind: 2, start: nanos(), end: nanos(1) },
      { traceId: bad, spanId: randomHex(8), name: "broken", kind: 999, start: nanos(), end: nanos(1) },
    ]);
    const res = await project.call("POST", "/otlp/v1/traces", body, protobuf);
    expect(res.statusCode).toBe(200);
    expect(rejectedSpans(res.rawPayload)).toBe(1);
    expect((await project.ok("GET", `/tracing/traces/${good}`)).count).toBe(1);
    expect(await project.ok("GET", `/tracing/traces/${bad}`)).toEqual({ count: 0 });
  });

  it("refuses a body that is not OTLP with a protobuf google.rpc.Status", async () => {
    const res = await project.call("POST", "/otlp/v1/traces", Buffer.from([0xff, 0xff, 0xff, 0x0f]), protobuf);
    expect(res.statusCode).toBe(400);
    expect(res.headers["content-type"]).toMatch(/application\/x-protobuf/);
    expect(res.rawPayload[0]).toBe(0x12); // field 2 (message), length-delimited
    expect(res.rawPayload.toString()).toContain("Failed to parse OTLP stream");
  });

  it("does not let another project see a trace", async () => {
    const traceId = randomHex(16);
    await project.call("POST", "/otlp/v1/traces", exportRequest([
      { traceId, spanId: randomHex(8), name: "private", start: nanos(), end: nanos(1) },
    ]), protobuf);
    expect((await project.ok("GET", `/tracing/traces/${traceId}`)).count).toBe(1);
    const stranger = await server.project();
    expect(await stranger.ok("GET", `/tracing/traces/${traceId}`)).toEqual({ count: 0 });
    const query = await stranger.ok("POST", "/tracing/spans/query", {
      focus: "span", filter: { conditions: [{ field: "trace_id", value: traceId }] },
    });
    expect(query).toEqual({ count: 0 });
  });

  it("answers an unknown trace with count 0 and a malformed id with 400", async () => {
    expect(await project.ok("GET", `/tracing/traces/${randomHex(16)}`)).toEqual({ count: 0 });
    expect((await project.call("GET", "/tracing/traces/not-a-trace")).statusCode).toBe(400);
  });

  it("needs the project key, and says so in a google.rpc.Status to a protobuf request", async () => {
    const res = await server.app.inject({
      method: "POST", url: "/api/otlp/v1/traces", payload: Buffer.alloc(0),
      headers: { ...protobuf, authorization: "ApiKey tsk_not-a-key" },
    });
    expect(res.statusCode).toBe(401);
    expect(res.headers["content-type"]).toMatch(/application\/x-protobuf/);
    expect(res.rawPayload.toString()).toContain("API key");
  });
});

describe("the OTLP size limit", () => {
  let small: TestServer;
  beforeAll(async () => {
    small = await startTestServer({ TESSERA_OTLP_MAX_BYTES: "2048" });
  });
  afterAll(async () => small.close());

  it("answers 413 with a google.rpc.Status past TESSERA_OTLP_MAX_BYTES", async () => {
    const p = await small.project();
    const spans = Array.from({ length: 40 }, (_, i) => ({
      traceId: randomHex(16), spanId: randomHex(8), name: `span-${i}`, start: nanos(), end: nanos(1),
      attributes: attributes({ filler: "x".repeat(40) }),
    }));
    const body = exportRequest(spans);
    expect(body.length).toBeGreaterThan(2048);
    const res = await p.call("POST", "/otlp/v1/traces", body, protobuf);
    expect(res.statusCode).toBe(413);
    expect(res.headers["content-type"]).toMatch(/application\/x-protobuf/);
    expect(res.rawPayload.toString()).toContain("OTLP batch size exceeds 2048 bytes");

    const json = await p.call("POST", "/otlp/v1/traces", JSON.stringify({ resourceSpans: [], pad: "x".repeat(4096) }),
      { "content-type": "application/json" });
    expect(json.statusCode).toBe(413);
    expect(json.json().detail).toContain("TESSERA_OTLP_MAX_BYTES");

    const bomb = gzipSync(Buffer.alloc(2048 * 8 + 1));
    expect(bomb.length).toBeLessThan(2048);
    expect((await p.call("POST", "/otlp/v1/traces", bomb, protobuf)).statusCode).toBe(413);
    // Under the limit, a request is stored.
    const one = exportRequest([spans[0]!]);
    expect((await p.call("POST", "/otlp/v1/traces", one, protobuf)).statusCode).toBe(200);
  });
});
