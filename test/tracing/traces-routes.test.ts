import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestProject, type TestServer } from "../support/server.ts";
import { randomHex } from "./otlp-support.ts";

let server: TestServer;
let project: TestProject;
let other: TestProject;

beforeAll(async () => {
  server = await startTestServer();
  project = await server.project();
  other = await server.project();
});
afterAll(async () => server.close());

/** A trace of a root span and one child, as the preview router takes it. */
const trace = (attributes: Record<string, unknown>, at?: string) => {
  const traceId = randomHex(16);
  const rootId = randomHex(8);
  const times = at ? { start_time: at, end_time: at } : {};
  return {
    trace_id: traceId,
    spans: {
      root: {
        span_id: rootId, span_name: "root", attributes, ...times,
        spans: { child: { span_id: randomHex(8), span_name: "child", attributes: { ag: { type: { node: "chat" } } } } },
      },
    },
  };
};
const ingest = async (body: unknown) => {
  const res = await project.call("POST", "/traces/ingest", body);
  expect(res.statusCode, res.body).toBe(202);
};
const attributeIs = (key: string, value: string) => ({
  operator: "and", conditions: [{ field: "attributes", key, value, operator: "is" }],
});

describe("POST /traces/ingest", () => {
  it("stores span trees and answers the trace ids, children linked to their parents", async () => {
    const sent = [trace({ marker: "ingest" }), trace({ marker: "ingest" })];
    const res = await project.call("POST", "/traces/ingest", { traces: sent });
    expect(res.statusCode).toBe(202);
    expect(res.json().count).toBe(2);
    expect(res.json().trace_ids.sort()).toEqual(sent.map((t) => t.trace_id).sort());
    const { trace: stored } = await project.ok("GET", `/traces/${sent[0]!.trace_id}`);
    expect(stored.spans.root.spans.child).toMatchObject({
      parent_id: sent[0]!.spans.root.span_id, span_type: "chat", trace_id: sent[0]!.trace_id,
    });
    expect(stored.spans.root.start_time).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it("refuses no traces, and a span that cannot be read, with a 400", async () => {
    expect((await project.call("POST", "/traces/ingest", { traces: [] })).statusCode).toBe(400);
    expect((await project.call("POST", "/traces/ingest", {})).statusCode).toBe(400);
    const bad = trace({});
    (bad.spans.root as Record<string, unknown>).start_time = "soon";
    const res = await project.call("POST", "/traces/ingest", { traces: [bad] });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(/start_time/);
  });
});

describe("GET /traces/ and /traces/{trace_id}", () => {
  it("fetches by ids (repeated or comma-separated), leaving out what another project holds", async () => {
    const [a, b] = [trace({}), trace({})];
    await ingest({ traces: [a, b] });
    const mine = await project.ok("GET", `/traces/?trace_ids=${a.trace_id},${b.trace_id}`);
    expect(mine.traces.map((t: any) => t.trace_id)).toEqual([a.trace_id, b.trace_id]);
    const repeated = await project.ok("GET", `/traces/?trace_id=${b.trace_id}&trace_id=${a.trace_id}`);
    expect(repeated.traces.map((t: any) => t.trace_id)).toEqual([b.trace_id, a.trace_id]);
    expect(await other.ok("GET", `/traces/?trace_ids=${a.trace_id}`)).toEqual({ count: 0, traces: [] });
    expect((await project.call("GET", "/traces/")).statusCode).toBe(400);
    expect((await project.call("GET", "/traces/?trace_ids=nope")).statusCode).toBe(400);
  });

  it("answers one trace, {count: 0} for one it does not hold, 405 for the POST routes' names", async () => {
    const t = trace({ ag: { data: { inputs: { q: "hi" }, outputs: "hello" } } });
    await ingest({ traces: [t] });
    const found = await project.ok("GET", `/traces/${t.trace_id}`);
    expect(found).toMatchObject({
      count: 1, trace: { trace_id: t.trace_id, span_id: t.spans.root.span_id, inputs: { q: "hi" }, outputs: "hello" },
    });
    expect(await other.ok("GET", `/traces/${t.trace_id}`)).toEqual({ count: 0 });
    expect(await project.ok("GET", `/traces/${randomHex(16)}`)).toEqual({ count: 0 });
    expect((await project.call("GET", "/traces/query")).statusCode).toBe(405);
    expect((await project.call("GET", "/traces/ingest")).statusCode).toBe(405);
    expect((await project.call("GET", "/traces/xyz")).statusCode).toBe(400);
  });
});

describe("POST /traces/query", () => {
  it("filters traces by a span's attribute, newest first, a page at a time", async () => {
    const key = `marker_${randomHex(4)}`;
    const times = ["2026-03-01T10:00:00Z", "2026-03-01T11:00:00Z", "2026-03-01T12:00:00Z"];
    const sent = times.map((at) => trace({ [key]: "yes" }, at));
    await ingest({ traces: [...sent, trace({ [key]: "no" })] });
    const all = await project.ok("POST", "/traces/query", { filtering: attributeIs(key, "yes") });
    expect(all.traces.map((t: any) => t.trace_id)).toEqual(sent.map((t) => t.trace_id).reverse());
    const first = await project.ok("POST", "/traces/query", {
      filtering: attributeIs(key, "yes"), windowing: { limit: 2 },
    });
    expect(first.count).toBe(2);
    const second = await project.ok("POST", "/traces/query", {
      filtering: attributeIs(key, "yes"), windowing: first.windowing,
    });
    expect(second.traces.map((t: any) => t.trace_id)).toEqual([sent[0]!.trace_id]);
    expect((await other.ok("POST", "/traces/query", { filtering: attributeIs(key, "yes") })).count).toBe(0);
    expect((await project.ok("POST", "/traces/query", {})).count).toBeGreaterThan(0);
  });

  it("answers by ids too, and refuses a filter it cannot read", async () => {
    const t = trace({});
    await ingest({ traces: [t] });
    const byIds = await project.ok("POST", "/traces/query", { trace_ids: [t.trace_id, randomHex(16)] });
    expect(byIds.traces.map((x: any) => x.trace_id)).toEqual([t.trace_id]);
    const bad = await project.call("POST", "/traces/query", {
      filtering: { operator: "and", conditions: [{ field: "attributes", key: "a", operator: "invalid_operator" }] },
    });
    expect(bad.statusCode).toBe(400);
    const unknown = await project.ok("POST", "/traces/query", { query_revision_ref: { id: crypto.randomUUID() } });
    expect(unknown).toEqual({ count: 0, traces: [] });
  });

  it("answers a saved query by its revision, and sends a span-focused one to /spans/query", async () => {
    const key = `saved_${randomHex(4)}`;
    const sent = [trace({ [key]: "yes" }), trace({ [key]: "yes" }), trace({ [key]: "no" })];
    await ingest({ traces: sent });
    const data = { filtering: attributeIs(key, "yes"), windowing: { limit: 50 } };
    const { query } = await project.ok("POST", "/simple/queries/", { query: { slug: key, data } });
    const found = await project.ok("POST", "/traces/query", { query_revision_ref: { id: query.revision_id } });
    expect(found.traces.map((t: any) => t.trace_id).sort()).toEqual([sent[0]!.trace_id, sent[1]!.trace_id].sort());
    const byVariant = await project.ok("POST", "/traces/query", { query_variant_ref: { id: query.variant_id } });
    expect(byVariant.count).toBe(2);
    const spanFocused = (await project.ok("POST", "/simple/queries/", {
      query: { slug: `${key}-spans`, data: { ...data, formatting: { focus: "span" } } },
    })).query;
    const refused = await project.call("POST", "/traces/query", { query_revision_ref: { id: spanFocused.revision_id } });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().detail).toMatch(/spans\/query/);
  });
});

describe("POST, PUT, DELETE /traces/", () => {
  it("creates a trace, replaces its spans, refuses another trace's body, deletes it", async () => {
    const t = trace({ version: "one" });
    expect((await project.call("POST", "/traces/", { trace: t })).json()).toEqual({ count: 1, trace_id: t.trace_id });
    const edited = { ...t, spans: { root: { ...t.spans.root, attributes: { version: "two" } } } };
    const put = await project.call("PUT", `/traces/${t.trace_id}`, { trace: edited });
    expect(put.statusCode).toBe(202);
    const { trace: stored } = await project.ok("GET", `/traces/${t.trace_id}`);
    expect(stored.spans.root.attributes.version).toBe("two");
    expect((await project.call("PUT", `/traces/${randomHex(16)}`, { trace: edited })).statusCode).toBe(400);
    expect((await project.call("POST", "/traces/", {})).statusCode).toBe(400);
    expect((await other.call("DELETE", `/traces/${t.trace_id}`)).json()).toEqual({ count: 0 });
    expect((await project.call("DELETE", `/traces/${t.trace_id}`)).json()).toEqual({ count: 1, trace_id: t.trace_id });
    expect(await project.ok("GET", `/traces/${t.trace_id}`)).toEqual({ count: 0 });
  });
});
