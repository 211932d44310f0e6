import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestProject, type TestServer } from "../support/server.ts";
import { randomHex } from "./otlp-support.ts";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server.close());

/** A root span at `at`, naming a session and a user, with its own tokens and optionally an exception. */
const root = (at: string, session: string | null, user: string | null, extra: Record<string, unknown> = {}) => ({
  trace_id: randomHex(16), span_id: randomHex(8), span_name: "agent", start_time: at, end_time: at,
  attributes: {
    ag: {
      ...(session ? { session: { id: session } } : {}), ...(user ? { user: { id: user } } : {}),
      metrics: { tokens: { incremental: { prompt: 3, completion: 2, total: 5 } } },
    },
  },
  ...extra,
});
const ingest = async (p: TestProject, spans: unknown[]) => {
  const res = await p.call("POST", "/tracing/spans/ingest", { spans });
  expect(res.statusCode, res.body).toBe(202);
};

describe("sessions and users", () => {
  it("lists distinct ids by first activity, newest first, a page at a time, under both prefixes", async () => {
    const p = await server.project();
    await ingest(p, [
      root("2026-02-01T10:00:00Z", "s-a", "u-1"), root("2026-02-01T11:00:00Z", "s-b", "u-1"),
      root("2026-02-01T12:00:00Z", "s-c", "u-2"), root("2026-02-01T13:00:00Z", "s-c", null),
      root("2026-02-01T14:00:00Z", null, null),
    ]);
    expect(await p.ok("POST", "/tracing/sessions/query", {})).toEqual({ count: 3, session_ids: ["s-c", "s-b", "s-a"] });
    const early = root("2026-02-01T09:00:00Z", "s-b", null);
    await ingest(p, [early]);
    // Realtime orders by last activity; the stable order by first activity.
    expect((await p.ok("POST", "/spans/sessions/query", { realtime: true })).session_ids).toEqual(["s-c", "s-b", "s-a"]);
    expect((await p.ok("POST", "/spans/sessions/query", {})).session_ids).toEqual(["s-c", "s-a", "s-b"]);
    await p.call("DELETE", `/tracing/traces/${early.trace_id}`);
    const first = await p.ok("POST", "/tracing/sessions/query", { windowing: { limit: 2 } });
    expect(first).toEqual({
      count: 2, session_ids: ["s-c", "s-b"], windowing: { newest: "2026-02-01T11:00:00.000000Z", limit: 2 },
    });
    const second = await p.ok("POST", "/tracing/sessions/query", { windowing: first.windowing });
    expect(second).toEqual({ count: 1, session_ids: ["s-a"] });
    const ascending = await p.ok("POST", "/spans/sessions/query", { windowing: { order: "ascending", limit: 2 } });
    expect(ascending.session_ids).toEqual(["s-a", "s-b"]);
    expect((await p.ok("POST", "/spans/sessions/query", { windowing: ascending.windowing })).session_ids)
      .toEqual(["s-c"]);
    expect((await p.ok("POST", "/tracing/users/query", {})).user_ids).toEqual(["u-2", "u-1"]);
    const other = await server.project();
    expect(await other.ok("POST", "/spans/users/query", {})).toEqual({ count: 0, user_ids: [] });
    const bad = await p.call("POST", "/tracing/sessions/query", { windowing: { order: "sideways" } });
    expect(bad.statusCode).toBe(400);
  });

  it("lists the session a hosted invocation was called with", async () => {
    const p = await server.project();
    const res = await server.app.inject({
      method: "POST", url: "/services/completion/v0/invoke", headers: { authorization: `ApiKey ${p.key}` },
      payload: {
        session_id: "chat-42",
        data: { inputs: {}, parameters: { prompt: { messages: [{ role: "user", content: "Hi" }], llm_config: { model: "x" } } } },
      },
    });
    expect(res.json().trace_id, res.body).toMatch(/^[0-9a-f]{32}$/);
    expect((await p.ok("GET", `/traces/${res.json().trace_id}`)).trace.spans["svc:builtin:completion:v0"].session_id)
      .toBe("chat-42");
    expect((await p.ok("POST", "/tracing/sessions/query", {})).session_ids).toEqual(["chat-42"]);
  });
});

describe("POST /tracing/spans/analytics", () => {
  it("buckets spans by the time they were stored, with totals and those that recorded an exception", async () => {
    const p = await server.project();
    const exception = { events: [{ name: "exception", timestamp: "2026-02-01T10:00:00Z", attributes: {} }] };
    await ingest(p, [root("2026-02-01T10:00:00Z", null, null), root("2026-02-01T10:00:00Z", null, null, exception)]);
    const hour = 3_600_000;
    const oldest = new Date(Math.floor(Date.now() / hour) * hour - hour).toISOString();
    const newest = new Date(Date.parse(oldest) + 3 * hour).toISOString();
    const answer = await p.ok("POST", "/tracing/spans/analytics", { windowing: { oldest, newest, interval: 60 } });
    expect(answer.count).toBe(3);
    expect(answer.buckets.map((b: any) => b.interval)).toEqual([60, 60, 60]);
    expect(answer.buckets[0]).toMatchObject({ total: { count: 0 }, errors: { count: 0 } });
    const now = answer.buckets[1];
    expect(now.timestamp).toBe(new Date(Date.parse(oldest) + hour).toISOString().replace(".000Z", "Z"));
    expect(now.total).toEqual({ count: 2, duration: 0, costs: 0, tokens: 10 });
    expect(now.errors).toEqual({ count: 1, duration: 0, costs: 0, tokens: 5 });
    const filtered = await p.ok("POST", "/tracing/spans/analytics", {
      oldest, newest, filter: JSON.stringify({ conditions: [{ field: "events", operator: "in", value: [{ name: "exception" }] }] }),
    });
    expect(filtered.buckets).toHaveLength(1);
    expect(filtered.buckets[0].total.count).toBe(1);
    const other = await server.project();
    const none = await other.ok("POST", "/tracing/spans/analytics", { oldest, newest });
    expect(none.buckets[0].total.count).toBe(0);
    expect((await p.call("POST", "/tracing/spans/analytics", { oldest: "yesterday-ish" })).statusCode).toBe(400);
  });
});

describe("spans and traces by id", () => {
  it("fetches spans by trace or span ids, and one span; replaces a trace's spans with PUT", async () => {
    const p = await server.project();
    const a = root("2026-02-01T10:00:00Z", null, null);
    const child = { ...root("2026-02-01T10:00:01Z", null, null), trace_id: a.trace_id, parent_id: a.span_id };
    await ingest(p, [a, child]);
    expect((await p.ok("GET", `/spans/?trace_ids=${a.trace_id}`)).count).toBe(2);
    const one = await p.ok("GET", `/spans/?trace_id=${a.trace_id}&span_id=${child.span_id}`);
    expect(one.spans.map((s: any) => s.span_id)).toEqual([child.span_id]);
    expect((await p.call("GET", "/spans/")).statusCode).toBe(400);
    expect(await p.ok("GET", `/spans/${a.trace_id}/${a.span_id}`)).toMatchObject({ count: 1, span: { span_name: "agent" } });
    const other = await server.project();
    expect(await other.ok("GET", `/spans/${a.trace_id}/${a.span_id}`)).toEqual({ count: 0 });

    const put = await p.call("PUT", `/tracing/traces/${a.trace_id}`, { spans: [{ ...a, span_name: "renamed" }] });
    expect(put.statusCode).toBe(202);
    expect(put.json()).toEqual({ count: 1, links: [{ trace_id: a.trace_id, span_id: a.span_id }] });
    expect((await p.ok("GET", `/spans/${a.trace_id}/${a.span_id}`)).span.span_name).toBe("renamed");
    const elsewhere = await p.call("PUT", `/tracing/traces/${randomHex(16)}`, { spans: [a] });
    expect(elsewhere.statusCode).toBe(400);
    expect(elsewhere.json().detail).toMatch(/does not match/);
  });
});
