import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestProject, type TestServer } from "../support/server.ts";
import { randomHex } from "./otlp-support.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await startTestServer();
  project = await server.project();
});
afterAll(async () => server.close());

const parent = randomHex(8);
const spans = (traceId: string) => [
  {
    trace_id: traceId, span_id: parent, span_name: "parent_span", span_kind: "SPAN_KIND_SERVER",
    start_time: 1670000000, end_time: 1680000000, status_code: "STATUS_CODE_OK", status_message: "This went well",
    attributes: {
      ag: {
        type: { trace: "unknown", span: "unknown" },
        data: { inputs: { text: "hello" }, outputs: "world" },
        metrics: { tokens: { acc: 100 } },
      },
      "some.more.array.0": "array-value-0",
      "some.object": { key1: "value1" },
    },
    events: [{ name: "exception", timestamp: 1675000001, attributes: { message: "PANIC!" } }],
  },
  {
    trace_id: traceId, span_id: randomHex(8), parent_id: parent, span_name: "child_span",
    span_kind: "SPAN_KIND_INTERNAL", start_time: "2023-01-01T12:00:00Z", end_time: "2023-01-01T12:00:01.5Z",
    status_code: "STATUS_CODE_ERROR",
  },
];

describe("POST /tracing/spans/ingest", () => {
  it("stores JSON spans as a trace, normalised as OTLP spans are", async () => {
    const traceId = randomHex(16);
    const res = await project.call("POST", "/tracing/spans/ingest", { spans: spans(traceId) });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ count: 2 });
    const answer = await project.ok("GET", `/tracing/traces/${traceId}`);
    expect(answer.count).toBe(1);
    const root = answer.traces[traceId].spans.parent_span;
    expect(root.start_time).toBe("2022-12-02T16:53:20.000000Z");
    expect(root.attributes.ag.data).toMatchObject({ inputs: { text: "hello" }, outputs: "world" });
    expect(root.attributes.some).toEqual({ more: { array: ["array-value-0"] }, object: { key1: "value1" } });
    expect(root.attributes.ag.metrics.errors.incremental).toBe(1);
    const child = root.spans.child_span;
    expect(child.status_code).toBe("STATUS_CODE_ERROR");
    expect(child.attributes.ag.metrics.duration.cumulative).toBe(1500);
  });

  it("refuses a span whose time or kind cannot be read, storing none of the batch", async () => {
    const traceId = randomHex(16);
    const [good, bad] = spans(traceId);
    const late = await project.call("POST", "/tracing/spans/ingest", { spans: [good, { ...bad, end_time: "soon" }] });
    expect(late.statusCode).toBe(400);
    expect(late.json().detail).toMatch(/end_time/);
    const kind = await project.call("POST", "/tracing/spans/ingest", { spans: [{ ...good, span_kind: "SERVER" }] });
    expect(kind.statusCode).toBe(400);
    expect((await project.ok("GET", `/tracing/traces/${traceId}`)).count).toBe(0);
  });
});

describe("POST and DELETE /tracing/traces", () => {
  it("stores a trace sent as a tree or a list, and deletes it idempotently", async () => {
    const treeId = randomHex(16);
    const [root, child] = spans(treeId);
    const tree = { traces: { [treeId]: { spans: { parent_span: { ...root, spans: { child_span: child } } } } } };
    const created = await project.call("POST", "/tracing/traces/", tree);
    expect(created.statusCode).toBe(202);
    expect(created.json()).toEqual({ count: 2 });
    const stored = await project.ok("GET", `/tracing/traces/${treeId}`);
    expect(stored.traces[treeId].spans.parent_span.spans.child_span.span_name).toBe("child_span");

    const listId = randomHex(16);
    const listed = await project.call("POST", "/tracing/traces/", { spans: [spans(listId)[0]] });
    expect(listed.json()).toEqual({ count: 1 });
    const deleted = await project.call("DELETE", `/tracing/traces/${listId}`);
    expect(deleted.statusCode).toBe(202);
    expect(deleted.json()).toEqual({ count: 1, links: [{ trace_id: listId, span_id: parent }] });
    expect((await project.ok("GET", `/tracing/traces/${listId}`)).count).toBe(0);
    const again = await project.call("DELETE", `/tracing/traces/${listId}`);
    expect(again.statusCode).toBe(202);
    expect(again.json()).toEqual({ count: 0, links: [] });
    expect((await project.ok("GET", `/tracing/traces/${treeId}`)).count).toBe(1);
  });
});
