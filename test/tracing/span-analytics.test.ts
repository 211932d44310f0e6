import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestProject, type TestServer } from "../support/server.ts";
import { randomHex } from "./otlp-support.ts";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ TESSERA_ANALYTICS_MAX_SPANS: "20" });
});
afterAll(async () => server.close());

/** A root span lasting `ms`, with meta values for the specs, and one child span carrying the same meta. */
function trace(ms: number, meta: Record<string, unknown>, type = "workflow") {
  const traceId = randomHex(16);
  const rootId = randomHex(8);
  const start = Date.parse("2026-03-01T10:00:00Z");
  const at = (offset: number) => new Date(start + offset).toISOString();
  return [
    {
      trace_id: traceId, span_id: rootId, span_name: "root", start_time: at(0), end_time: at(ms),
      attributes: { ag: { type: { node: type }, meta } },
    },
    {
      trace_id: traceId, span_id: randomHex(8), parent_id: rootId, span_name: "child", start_time: at(0),
      end_time: at(1), attributes: { ag: { type: { node: "task" }, meta: { ...meta, score: 1000 } } },
    },
  ];
}
const ingest = async (p: TestProject, spans: unknown[]) => {
  const res = await p.call("POST", "/tracing/spans/ingest", { spans });
  expect(res.statusCode, res.body).toBe(202);
};
/** A window of 61 minutes around now: spans are bucketed by the time they were stored. */
const around = (now = Date.now()) => ({
  oldest: new Date(now - 3_600_000).toISOString(), newest: new Date(now + 60_000).toISOString(),
});

describe("span analytics", () => {
  it("answers the reference's default metrics over root spans, in one bucket without an interval", async () => {
    const p = await server.project();
    await ingest(p, [...trace(100, {}), ...trace(300, {}), ...trace(200, {}, "agent")]);
    const window = around();
    const answer = await p.ok("POST", "/tracing/analytics/query", window);
    expect(answer.count).toBe(1);
    expect(answer.specs).toHaveLength(6);
    expect(answer.query).toMatchObject({ formatting: { focus: "trace", format: "agenta" }, windowing: window });
    const [bucket] = answer.buckets;
    expect(bucket.timestamp).toBe(window.oldest);
    expect(bucket.interval).toBe(61);
    const duration = bucket.metrics["attributes.ag.metrics.duration.cumulative"];
    expect(duration).toMatchObject({
      type: "numeric/continuous", count: 3, sum: 600, mean: 200, min: 100, max: 300, range: 200,
      iqrs: { iqr50: 100 },
    });
    expect(duration.pcts).toMatchObject({ p50: 200, p25: 150, p75: 250, "p00.05": 100.1, "p99.95": 299.9 });
    expect(Object.keys(duration.pcts)).toHaveLength(27);
    expect(duration.pscs.psc50).toBeCloseTo(0.5);
    // ceil(sqrt(3)) = 2 bins over [100, 300]; the maximum counts in the last.
    expect(duration.hist).toEqual([
      { bin: 1, count: 1, interval: [100, 200], density: 0.33333 },
      { bin: 2, count: 2, interval: [200, 300], density: 0.66667 },
    ]);
    expect(bucket.metrics["attributes.ag.type.span"]).toEqual({
      type: "categorical/single", count: 3,
      freq: [{ value: "workflow", count: 2, density: 0.66667 }, { value: "agent", count: 1, density: 0.33333 }],
      uniq: ["workflow", "agent"],
    });
    // Only metrics with values: these spans have no costs or tokens.
    expect(bucket.metrics["attributes.ag.metrics.costs.cumulative.total"]).toBeUndefined();
    // The preview prefix answers the same; another project sees nothing.
    expect((await p.ok("POST", "/spans/analytics/query", window)).buckets).toEqual(answer.buckets);
    expect(await (await server.project()).ok("POST", "/tracing/analytics/query", window))
      .toMatchObject({ count: 0, buckets: [] });
  });

  it("computes each spec type, filters, buckets by interval and samples by rate", async () => {
    const p = await server.project();
    await ingest(p, [
      ...trace(10, { score: 1, passed: true, labels: ["a", "b"], label: "x", note: "hi", extra: { k: 1 } }),
      ...trace(10, { score: 2, passed: false, labels: ["a"], label: "y", note: 5, extra: [1] }),
      ...trace(10, { score: 2, passed: true, labels: "a", label: "x", extra: { k: 2 } }),
      ...trace(10, { score: "n/a", customer: "other" }),
    ]);
    const specs = [
      { type: "numeric/continuous", path: "attributes.ag.meta.score", bins: 2, vmin: 0, vmax: 4 },
      { type: "numeric/discrete", path: "ag.meta.score" },
      { type: "binary", path: "attributes.ag.meta.passed" },
      { type: "categorical/multiple", path: "attributes.ag.meta.labels" },
      { type: "categorical/single", path: "attributes.ag.meta.label" },
      { type: "string", path: "attributes.ag.meta.note" },
      { type: "json", path: "attributes.ag.meta.extra" },
      { type: "none", path: "attributes.ag.meta.ignored" },
    ];
    const { oldest, newest } = around();
    const windowing = { oldest, newest, interval: 15 };
    const answer = await p.ok("POST", "/tracing/analytics/query", { windowing, specs });
    expect(answer.count).toBe(1);
    const [bucket] = answer.buckets;
    expect(bucket.interval).toBe(15);
    const start = Date.parse(oldest) + Math.floor((Date.now() - Date.parse(oldest)) / 900_000) * 900_000;
    expect(Date.parse(bucket.timestamp)).toBeLessThanOrEqual(Date.now());
    expect([start, start - 900_000]).toContain(Date.parse(bucket.timestamp));
    const m = bucket.metrics;
    expect(m["attributes.ag.meta.score"]).toMatchObject({
      type: "numeric/continuous", count: 3, sum: 5, min: 1, max: 2,
      // Bins are half-open, [0, 2) and [2, 4].
      hist: [
        { bin: 1, count: 1, interval: [0, 2], density: 0.33333 },
        { bin: 2, count: 2, interval: [2, 4], density: 0.66667 },
      ],
    });
    // The discrete spec shares the path: one entry keeps the first type and adds the frequencies.
    expect(m["attributes.ag.meta.score"].freq).toEqual([
      { value: 2, count: 2, density: 0.66667 }, { value: 1, count: 1, density: 0.33333 },
    ]);
    expect(m["attributes.ag.meta.passed"]).toEqual({
      type: "binary", count: 3,
      freq: [{ value: true, count: 2, density: 0.66667 }, { value: false, count: 1, density: 0.33333 }],
      uniq: [true, false],
    });
    expect(m["attributes.ag.meta.labels"]).toEqual({
      type: "categorical/multiple", count: 3,
      freq: [{ value: "a", count: 2, density: 0.66667 }, { value: "b", count: 1, density: 0.33333 }], uniq: ["a", "b"],
    });
    expect(m["attributes.ag.meta.label"].freq).toEqual([
      { value: "x", count: 2, density: 0.66667 }, { value: "y", count: 1, density: 0.33333 },
    ]);
    expect(m["attributes.ag.meta.note"]).toEqual({ type: "string", count: 1 });
    expect(m["attributes.ag.meta.extra"]).toEqual({ type: "json", count: 2 });
    expect(m["attributes.ag.meta.ignored"]).toBeUndefined();

    // The filter narrows the root spans; the query string carries fields as JSON text.
    const filter = { conditions: [{ field: "attributes", key: "ag.meta.label", operator: "is", value: "x" }] };
    const text = (value: unknown) => encodeURIComponent(JSON.stringify(value));
    const url = `/spans/analytics/query?oldest=${oldest}&newest=${newest}&filter=${text(filter)}` +
      `&specs=${text(specs.slice(0, 1))}`;
    const filtered = await p.ok("POST", url, {});
    expect(filtered.buckets[0].metrics["attributes.ag.meta.score"]).toMatchObject({ count: 2, sum: 3 });
    expect((await p.ok("POST", "/tracing/analytics/query", { oldest, newest, rate: 0 })).count).toBe(0);
    const all = await p.ok("POST", "/tracing/analytics/query", { oldest, newest, rate: 1, specs: specs.slice(0, 1) });
    expect(all.buckets[0].metrics["attributes.ag.meta.score"].count).toBe(3);
  });

  it("refuses bad specs and windows with a detail, and a window past the span limit", async () => {
    const p = await server.project();
    const bad = [
      [{ specs: [{ type: "numeric", path: "x" }] }, 422, "type is one of"],
      [{ specs: [{ type: "binary", path: 3 }] }, 422, "path"],
      [{ specs: [{ type: "numeric/continuous", path: "x", bins: 1.5 }] }, 422, "bins"],
      [{ specs: [{ type: "numeric/continuous", path: "x", bins: 100_000 }] }, 422, "at most 1000 bins"],
      [{ specs: [{ type: "numeric/continuous", path: "x", vmin: "0" }] }, 422, "vmin"],
      [{ specs: [{ type: "numeric/continuous", path: "x", edge: "yes" }] }, 422, "edge"],
      [{ specs: "[{" }, 422, "JSON text"],
      [{ specs: { type: "binary" } }, 422, "list"],
      [{ specs: ["binary"] }, 422, "object"],
      [{ specs: Array.from({ length: 101 }, () => ({ type: "binary", path: "x" })) }, 422, "at most 100"],
      [{ oldest: "yesterday" }, 400, "windowing.oldest"],
      [{ interval: "often" }, 422, ""],
      [{ filter: { operator: "xor" } }, 400, "logical operator"],
      [{ filter: "{" }, 400, "filter"],
    ] as const;
    for (const [body, status, detail] of bad) {
      const res = await p.call("POST", "/tracing/analytics/query", body);
      expect(res.statusCode, JSON.stringify(body)).toBe(status);
      expect(JSON.stringify(res.json().detail)).toContain(detail);
    }
    await ingest(p, Array.from({ length: 21 }, () => trace(5, {})).flat());
    const over = await p.call("POST", "/tracing/analytics/query", around());
    expect(over.statusCode).toBe(400);
    expect(over.json().detail).toContain("TESSERA_ANALYTICS_MAX_SPANS");
    const sampled = await p.call("POST", "/tracing/analytics/query", { ...around(), rate: 0.3 });
    expect(sampled.statusCode, sampled.body).toBe(200);
  });
});
