import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestProject, type TestServer } from "../support/server.ts";
import { attributes, exportRequest, randomHex } from "./otlp-support.ts";

let server: TestServer;
let project: TestProject;
const prefix = `q${randomHex(4)}`;
const appId = randomUUID();
const traceIds = [randomHex(16), randomHex(16), randomHex(16)];
// Three traces a minute apart, the first the oldest: a root (with a score) and a chat call each.
const minute = 60_000_000_000n;
const base = BigInt(Date.UTC(2026, 0, 10, 12, 0, 0)) * 1_000_000n;

beforeAll(async () => {
  server = await startTestServer();
  project = await server.project();
  const spans = traceIds.flatMap((traceId, i) => {
    const rootId = randomHex(8);
    const start = base + BigInt(i) * minute;
    return [
      {
        traceId, spanId: rootId, name: `${prefix}-root-${i}`, kind: 2, start, end: start + 1_000_000n,
        attributes: attributes({
          "ag.type.node": "workflow", "ag.data.outputs.score": i * 10,
          "ag.data.inputs.text": i === 2 ? "a needle here" : "hay",
          "ag.meta.customer": `c-${i}`, "gen_ai.prompt": `${"a long prompt ".repeat(20)}${i}`,
          ...(i === 1 ? { "ag.refs.application.id": appId } : {}),
        }),
      },
      {
        traceId, spanId: randomHex(8), parentSpanId: rootId, name: `${prefix}-chat-${i}`, kind: 3,
        start: start + 100n, end: start + 500_000n, attributes: attributes({ "ag.type.node": "chat" }),
      },
    ];
  });
  const headers = { "content-type": "application/x-protobuf" };
  const res = await project.call("POST", "/otlp/v1/traces", exportRequest(spans), headers);
  expect(res.statusCode).toBe(200);
});
afterAll(async () => server.close());

const mine = { field: "span_name", operator: "startswith", value: prefix };
const query = (body: object) => project.ok("POST", "/tracing/spans/query", body);
const names = (answer: { spans?: { span_name: string }[] }) => (answer.spans ?? []).map((s) => s.span_name).sort();

describe("POST /tracing/spans/query", () => {
  it("filters spans by name, type, attributes with a dotted key, references and content", async () => {
    expect((await query({ focus: "span", filter: { conditions: [mine] } })).count).toBe(6);
    const chat = { field: "span_type", operator: "in", value: ["chat"] };
    const chats = await query({ focus: "span", filter: { conditions: [mine, chat] } });
    expect(names(chats)).toEqual([0, 1, 2].map((i) => `${prefix}-chat-${i}`));
    const scored = await query({
      focus: "span",
      filter: { conditions: [mine, { field: "attributes", key: "ag.data.outputs.score", operator: "gte", value: 10 }] },
    });
    expect(names(scored)).toEqual([`${prefix}-root-1`, `${prefix}-root-2`]);
    const referenced = await query({
      focus: "span", filter: { conditions: [{ field: "references", operator: "in", value: [{ id: appId }] }] },
    });
    expect(names(referenced)).toEqual([`${prefix}-root-1`]);
    // Spans without references are not among them, so each of the others is among those that are not.
    const isApp = { field: "references", operator: "in", value: [{ id: appId }] };
    const unreferenced = [0, 1, 2].map((i) => `${prefix}-chat-${i}`).concat(`${prefix}-root-0`, `${prefix}-root-2`);
    for (const not of [{ ...isApp, operator: "not_in" }, { operator: "not", conditions: [isApp] }]) {
      expect(names(await query({ focus: "span", filter: { conditions: [mine, not] } }))).toEqual(unreferenced);
    }
    const needle = { field: "content", operator: "contains", value: "needle" };
    const found = await query({ focus: "span", filter: { conditions: [mine, needle] } });
    expect(names(found)).toEqual([`${prefix}-root-2`]);
    const either = await query({
      focus: "span",
      filter: { conditions: [mine, { operator: "or", conditions: [
        { field: "span_name", operator: "endswith", value: "root-0" },
        { field: "span_name", value: `${prefix}-chat-2` },
      ] }] },
    });
    expect(names(either)).toEqual([`${prefix}-chat-2`, `${prefix}-root-0`]);
  });

  it("finds an attribute equality in labels, data, metrics, references and long strings alike", async () => {
    const equal = async (key: string, value: unknown) => names(await query({
      focus: "span", filter: { conditions: [mine, { field: "attributes", key, operator: "is", value }] },
    }));
    expect(await equal("ag.meta.customer", "c-1")).toEqual([`${prefix}-root-1`]);
    expect(await equal("ag.data.outputs.score", 20)).toEqual([`${prefix}-root-2`]);
    expect(await equal("ag.references.application.id", appId)).toEqual([`${prefix}-root-1`]);
    expect(await equal("ag.metrics.duration.cumulative", 1)).toEqual([0, 1, 2].map((i) => `${prefix}-root-${i}`));
    expect(await equal("gen_ai.prompt", `${"a long prompt ".repeat(20)}0`)).toEqual([`${prefix}-root-0`]);
    expect(await equal("ag", { meta: { customer: "c-2" } })).toEqual([`${prefix}-root-2`]);
    const notCustomer = { field: "attributes", key: "ag.meta.customer", operator: "is_not", value: "c-1" };
    const others = await query({ focus: "span", filter: { conditions: [mine, notCustomer] } });
    const chats = [0, 1, 2].map((i) => `${prefix}-chat-${i}`);
    expect(names(others)).toEqual([...chats, `${prefix}-root-0`, `${prefix}-root-2`]);
  });

  it("compares attribute strings, lists attribute values and matches nothing in another project", async () => {
    const later = { field: "attributes", key: "ag.data.inputs.text", operator: "gt", value: "b" };
    const laterOnes = await query({ focus: "span", filter: { conditions: [mine, later] } });
    expect(names(laterOnes)).toEqual([`${prefix}-root-0`, `${prefix}-root-1`]);
    const listed = { field: "attributes", key: "ag.data.outputs.score", operator: "in", value: [0, 20] };
    const listedOnes = await query({ focus: "span", filter: { conditions: [mine, listed] } });
    expect(names(listedOnes)).toEqual([`${prefix}-root-0`, `${prefix}-root-2`]);
    const stranger = await server.project();
    expect(await stranger.ok("POST", "/tracing/spans/query", { filter: { conditions: [mine] } })).toEqual({ count: 0 });
  });

  it("windows by start time, newest first, and pages traces with the answer's windowing", async () => {
    const window = { oldest: "2026-01-10T12:01:00Z", newest: "2026-01-10T12:02:00Z" };
    const middle = await query({ focus: "span", ...window, filter: { conditions: [mine] } });
    expect(names(middle)).toEqual([`${prefix}-chat-1`, `${prefix}-root-1`]);

    const first = await query({ filter: { conditions: [mine] }, limit: 2 });
    expect(Object.keys(first.traces)).toEqual([traceIds[2], traceIds[1]]);
    expect(first.windowing).toMatchObject({ limit: 2, next: traceIds[1] });
    const second = await query({ filtering: { conditions: [mine] }, windowing: first.windowing });
    expect(second.count).toBe(1);
    expect(Object.keys(second.traces)).toEqual([traceIds[0]]);
    expect(second.windowing).toBeUndefined();
    expect(second.traces[traceIds[0]!].spans[`${prefix}-root-0`].spans[`${prefix}-chat-0`]).toBeDefined();

    const flat = { formatting: { focus: "span" }, filtering: { conditions: [mine] } };
    const spansPage = await query({ ...flat, windowing: { limit: 4 } });
    expect(spansPage.count).toBe(4);
    const rest = await query({ ...flat, windowing: spansPage.windowing });
    expect(rest.count).toBe(2);
    expect(new Set([...names(spansPage), ...names(rest)]).size).toBe(6);
  });

  it("answers 400 for a condition the reference refuses, and count 0 when nothing matches", async () => {
    const bad = [
      { field: "span_kind", value: "SPAN_KIND_NOPE" },
      { field: "trace_id", value: "not-an-id" },
      { field: "attributes", operator: "is", value: 1 },
      { field: "span_name", operator: "sounds_like", value: "x" },
    ];
    for (const condition of bad) {
      const res = await project.call("POST", "/tracing/spans/query", { filter: { conditions: [condition] } });
      expect(res.statusCode, JSON.stringify(condition)).toBe(400);
    }
    const none = { field: "span_name", value: `${prefix}-none` };
    expect(await query({ filter: { conditions: [none] } })).toEqual({ count: 0 });
  });
});

describe("POST /spans/query (the preview router)", () => {
  it("answers a flat, filtered, windowed list of spans", async () => {
    const filtering = { conditions: [mine, { field: "span_type", value: "workflow" }] };
    const page = await project.ok("POST", "/spans/query", { filtering, windowing: { limit: 2 } });
    expect(names(page)).toEqual([`${prefix}-root-1`, `${prefix}-root-2`]);
    const rest = await project.ok("POST", "/spans/query", { filtering, windowing: page.windowing });
    expect(rest).toMatchObject({ count: 1, spans: [{ span_name: `${prefix}-root-0` }] });
    const none = { filtering: { conditions: [{ field: "span_name", value: "none" }] } };
    expect(await project.ok("POST", "/spans/query", none)).toEqual({ count: 0, spans: [] });
  });
});
