import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyRows, fetchRows, insertRows, type Row } from "../../src/evaluations/entities/entity-table.ts";
import { results, scenarios } from "../../src/evaluations/entities/tables.ts";
import { startTestServer, type TestProject, type TestServer } from "../support/server.ts";
import { attributes, exportRequest, randomHex } from "../tracing/otlp-support.ts";

let server: TestServer;
let p: TestProject;

beforeAll(async () => {
  server = await startTestServer();
  p = await server.project();
});

afterAll(() => server.close());

const newRun = async (project = p, run: object = {}) =>
  (await project.ok("POST", "/evaluations/runs/", { runs: [{ name: "nightly", ...run }] })).runs[0];

describe("evaluation runs, as a client that drives its own evaluation writes them", () => {
  it("creates, reads, queries, edits and deletes runs in the reference's shapes", async () => {
    const created = await p.ok("POST", "/evaluations/runs/", {
      runs: [
        { name: "baseline", tags: { team: "qa" }, flags: { has_testsets: true }, data: { steps: [], repeats: 1 } },
        { name: "candidate", status: "running", unknown_field: "ignored" },
      ],
    });
    expect(created.count).toBe(2);
    const [baseline, candidate] = created.runs;
    expect(baseline).toMatchObject({
      name: "baseline", status: "pending", version: "2025-07-14", tags: { team: "qa" }, flags: { has_testsets: true },
      data: { steps: [], repeats: 1 }, created_by_id: p.userId,
    });
    expect(baseline.created_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(baseline).not.toHaveProperty("project_id");
    expect(await p.ok("GET", `/evaluations/runs/${candidate.id}`)).toMatchObject({ count: 1, run: { id: candidate.id, status: "running" } });

    const byTag = await p.ok("POST", "/evaluations/runs/query", { run: { tags: { team: "qa" } } });
    expect(byTag.runs.map((r: any) => r.id)).toEqual([baseline.id]);
    const running = await p.ok("POST", "/evaluations/runs/query", { run: { statuses: ["running", "queued"] } });
    expect(running.runs.map((r: any) => r.id)).toEqual([candidate.id]);
    const newestFirst = await p.ok("POST", "/evaluations/runs/query", { run: { ids: [baseline.id, candidate.id] }, windowing: { limit: 1 } });
    expect(newestFirst.runs.map((r: any) => r.id)).toEqual([candidate.id]);
    const next = await p.ok("POST", "/evaluations/runs/query", { run: { ids: [baseline.id, candidate.id] }, windowing: newestFirst.windowing });
    expect(next.runs.map((r: any) => r.id)).toEqual([baseline.id]);

    const edited = await p.ok("PATCH", `/evaluations/runs/${baseline.id}`, { run: { id: baseline.id, description: "v1 prompt" } });
    expect(edited.run).toMatchObject({ name: "baseline", description: "v1 prompt", updated_by_id: p.userId });
    const bulk = await p.ok("PATCH", "/evaluations/runs/", { runs: [{ id: candidate.id, status: "success" }] });
    expect(bulk.runs[0]).toMatchObject({ id: candidate.id, status: "success", name: "candidate" });

    expect(await p.ok("DELETE", `/evaluations/runs/${candidate.id}`)).toEqual({ count: 1, run_id: candidate.id });
    expect(await p.ok("GET", `/evaluations/runs/${candidate.id}`)).toEqual({ count: 0, run: null });
  });

  it("closes a run: it refuses new scenarios, results and edits with 409 until it is opened again", async () => {
    const run = await newRun();
    const [scenario] = (await p.ok("POST", "/evaluations/scenarios/", { scenarios: [{ run_id: run.id }] })).scenarios;
    const closed = await p.ok("POST", `/evaluations/runs/${run.id}/close?status=success`);
    expect(closed.run).toMatchObject({ status: "success", flags: { is_closed: true } });

    const refused = [
      await p.call("POST", "/evaluations/scenarios/", { scenarios: [{ run_id: run.id }] }),
      await p.call("POST", "/evaluations/results/", { results: [{ run_id: run.id, scenario_id: scenario.id, step_key: "app" }] }),
      await p.call("PATCH", `/evaluations/runs/${run.id}`, { run: { name: "renamed" } }),
      await p.call("PATCH", `/evaluations/scenarios/${scenario.id}`, { scenario: { status: "success" } }),
      await p.call("DELETE", `/evaluations/scenarios/${scenario.id}`),
      await p.call("POST", "/evaluations/metrics/", { metrics: [{ run_id: run.id, data: {} }] }),
    ];
    for (const res of refused) {
      expect(res.statusCode).toBe(409);
      expect(res.json().detail).toEqual({ message: "Cannot modify a closed evaluation.", run_id: run.id });
    }

    const reopened = await p.ok("POST", "/evaluations/runs/open", { run_ids: [run.id] });
    expect(reopened.runs[0].flags.is_closed).toBe(false);
    expect((await p.call("POST", "/evaluations/scenarios/", { scenarios: [{ run_id: run.id }] })).statusCode).toBe(200);
  });

  it("deletes a run with everything under it: its scenarios, results and metrics", async () => {
    const run = await newRun();
    const [scenario] = (await p.ok("POST", `/simple/evaluations/${run.id}/scenarios/add`, { count: 1 })).scenarios;
    const [result] = (await p.ok("POST", "/evaluations/results/", {
      results: [{ run_id: run.id, scenario_id: scenario.id, step_key: "app", status: "success" }],
    })).results;
    await p.ok("POST", "/evaluations/metrics/", { metrics: [{ run_id: run.id, scenario_id: scenario.id, data: {} }] });
    expect(await p.ok("DELETE", `/evaluations/runs/${run.id}`)).toEqual({ count: 1, run_id: run.id });
    expect(await p.ok("GET", `/evaluations/scenarios/${scenario.id}`)).toEqual({ count: 0, scenario: null });
    expect(await p.ok("GET", `/evaluations/results/${result.id}`)).toEqual({ count: 0, result: null });
    expect((await p.ok("POST", "/evaluations/metrics/query", { metrics: { run_id: run.id } })).metrics).toEqual([]);
  });

  it("keeps scenarios inside their run, in creation order, and deletes a scenario with its results", async () => {
    const run = await newRun();
    const added = await p.ok("POST", `/simple/evaluations/${run.id}/scenarios/add`, { count: 3, timestamp: "2026-01-02T03:04:59Z" });
    expect(added.count).toBe(3);
    expect(added.scenarios[0]).toMatchObject({ run_id: run.id, status: "pending", timestamp: "2026-01-02T03:04:00.000Z", interval: 1 });
    const listed = await p.ok("POST", "/evaluations/scenarios/query", { scenario: { run_id: run.id } });
    expect(listed.scenarios.map((s: any) => s.id)).toEqual(added.scenarios.map((s: any) => s.id));

    const [first] = added.scenarios;
    const edited = await p.ok("PATCH", `/evaluations/scenarios/${first.id}`, { scenario: { status: "success", run_id: "ignored-field" } });
    expect(edited.scenario).toMatchObject({ id: first.id, status: "success", run_id: run.id, timestamp: first.timestamp });
    const done = await p.ok("POST", "/evaluations/scenarios/query", { scenario: { run_ids: [run.id], status: "success" } });
    expect(done.scenarios.map((s: any) => s.id)).toEqual([first.id]);
    // A scenario's results go with it; another scenario's stay.
    const second = added.scenarios[1];
    const [gone, kept] = (await p.ok("POST", "/evaluations/results/", {
      results: [first, second].map((s: any) => ({ run_id: run.id, scenario_id: s.id, step_key: "app" })),
    })).results;
    expect(await p.ok("DELETE", "/evaluations/scenarios/", { scenario_ids: [first.id] })).toEqual({ count: 1, scenario_ids: [first.id] });
    expect(await p.ok("GET", `/evaluations/results/${gone.id}`)).toEqual({ count: 0, result: null });
    const { result } = await p.ok("GET", `/evaluations/results/${kept.id}`);
    expect(result).toMatchObject({ id: kept.id, scenario_id: second.id });
  });

  it("stores one result per scenario, step and repeat: setting it again replaces it", async () => {
    const run = await newRun();
    const [s1, s2] = (await p.ok("POST", `/simple/evaluations/${run.id}/scenarios/add`, { count: 2 })).scenarios;
    const first = await p.ok("POST", "/evaluations/results/", {
      results: [
        { run_id: run.id, scenario_id: s1.id, step_key: "application-a", status: "running" },
        { run_id: run.id, scenario_id: s1.id, step_key: "evaluator-exact", trace_id: "a".repeat(32), status: "success" },
        { run_id: run.id, scenario_id: s2.id, step_key: "application-a", repeat_idx: 1, error: { message: "boom" }, status: "failure" },
      ],
    });
    expect(first.count).toBe(3);
    const again = await p.ok("PUT", "/evaluations/results/", {
      results: [{ run_id: run.id, scenario_id: s1.id, step_key: "application-a", status: "success", trace_id: "b".repeat(32) }],
    });
    expect(again.results[0]).toMatchObject({ id: first.results[0].id, status: "success", trace_id: "b".repeat(32), repeat_idx: 0 });

    const populated = await p.ok("POST", `/simple/evaluations/${run.id}/populate`, {
      results: [{ scenario_id: s2.id, step_key: "evaluator-exact", status: "success" }],
    });
    expect(populated.results[0]).toMatchObject({ run_id: run.id, scenario_id: s2.id });

    const apps = await p.ok("POST", "/evaluations/results/query", { result: { run_id: run.id, step_keys: ["application-a"] } });
    expect(apps.results.map((r: any) => [r.scenario_id, r.repeat_idx, r.status])).toEqual([[s1.id, 0, "success"], [s2.id, 1, "failure"]]);
    const fetched = await p.ok("GET", `/evaluations/results/${first.results[2].id}`);
    expect(fetched.result.error).toEqual({ message: "boom" });
  });

  it("refuses a result for a scenario that is not in its run, and a scenario for a run that is not the caller's", async () => {
    const run = await newRun();
    const otherRun = await newRun();
    const [inOther] = (await p.ok("POST", `/simple/evaluations/${otherRun.id}/scenarios/add`, { count: 1 })).scenarios;
    const wrongRun = await p.call("POST", "/evaluations/results/", { results: [{ run_id: run.id, scenario_id: inOther.id, step_key: "x" }] });
    expect(wrongRun.statusCode).toBe(400);
    expect(wrongRun.json().detail).toContain(inOther.id);

    const stranger = await server.project();
    const foreign = await stranger.call("POST", "/evaluations/scenarios/", { scenarios: [{ run_id: run.id }] });
    expect(foreign.statusCode).toBe(404);
    expect(await stranger.ok("GET", `/evaluations/runs/${run.id}`)).toEqual({ count: 0, run: null });
    expect(await stranger.ok("POST", "/evaluations/scenarios/query", { scenario: { run_id: otherRun.id } })).toMatchObject({ count: 0 });
    expect(await stranger.ok("DELETE", "/evaluations/runs/", { run_ids: [run.id] })).toEqual({ count: 0, run_ids: [] });
    expect((await p.ok("GET", `/evaluations/runs/${run.id}`)).count).toBe(1);
  });

  it("answers 422 for a malformed entity, naming the field", async () => {
    const run = await newRun();
    const res = await p.call("POST", "/evaluations/results/", { results: [{ run_id: run.id, scenario_id: "not-a-uuid", step_key: "x" }] });
    expect(res.statusCode).toBe(422);
    expect(JSON.stringify(res.json().detail)).toContain("scenario_id");
    const status = await p.call("POST", "/evaluations/runs/", { runs: [{ status: "finished" }] });
    expect(status.statusCode).toBe(422);
  });
});

describe("evaluation metrics", () => {
  it("aggregates a run's results, per evaluator output, under the reference's metric keys", async () => {
    const app = (await p.ok("POST", "/simple/applications/", {
      application: {
        slug: "scorer",
        data: { uri: "svc:custom:code:v0", script: "function run(inputs) { return { score: inputs.n / 10, success: inputs.n >= 5, label: inputs.n >= 5 ? 'high' : 'low' }; }" },
      },
    })).application;
    const path = new URL(app.data.url).pathname;
    const traces: string[] = [];
    for (const n of [2, 4, 6, 8]) {
      const res = await server.app.inject({
        method: "POST", url: `${path}/invoke`, headers: { authorization: `ApiKey ${p.key}` }, payload: { data: { inputs: { n } } },
      });
      traces.push(res.json().trace_id);
    }
    const run = await newRun(p, { data: { steps: [{ key: "evaluator-scorer", type: "annotation", origin: "auto", references: {} }] } });
    const { scenarios } = await p.ok("POST", `/simple/evaluations/${run.id}/scenarios/add`, { count: 4 });
    await p.ok("POST", "/evaluations/results/", {
      results: scenarios.map((s: any, i: number) => ({ run_id: run.id, scenario_id: s.id, step_key: "evaluator-scorer", trace_id: traces[i], status: "success" })),
    });

    const refreshed = await p.ok("POST", "/evaluations/metrics/refresh", { metrics: { run_id: run.id } });
    const data = refreshed.metrics[0].data["evaluator-scorer"];
    expect(data["attributes.ag.data.outputs.score"]).toMatchObject({
      type: "numeric/continuous", count: 4, mean: 0.5, min: 0.2, max: 0.8, pcts: { p50: 0.5 },
    });
    expect(data["attributes.ag.data.outputs.score"].sum).toBeCloseTo(2);
    expect(data["attributes.ag.data.outputs.success"]).toMatchObject({
      type: "binary", count: 4, freq: [{ value: true, count: 2, density: 0.5 }, { value: false, count: 2, density: 0.5 }],
    });
    expect(data["attributes.ag.data.outputs.label"].freq).toEqual(expect.arrayContaining([{ value: "high", count: 2, density: 0.5 }]));
    expect(data["attributes.ag.metrics.errors.cumulative"]).toMatchObject({ count: 4, sum: 0 });
    expect(data["attributes.ag.metrics.duration.cumulative"].count).toBe(4);

    await p.ok("POST", "/evaluations/metrics/refresh", { metrics: { run_id: run.id, scenario_id: scenarios[3].id } });
    const global = await p.ok("POST", "/evaluations/metrics/query", { metrics: { run_id: run.id, scenario_ids: false, timestamps: false } });
    expect(global.metrics).toHaveLength(1);
    expect(global.metrics[0].scenario_id).toBeNull();
    const variational = await p.ok("POST", "/evaluations/metrics/query", { metrics: { run_id: run.id, scenario_ids: true } });
    expect(variational.metrics).toHaveLength(1);
    expect(variational.metrics[0].data["evaluator-scorer"]["attributes.ag.data.outputs.score"]).toMatchObject({ count: 1, mean: 0.8 });

    // Refreshing again replaces the run's row instead of adding one.
    await p.ok("POST", "/evaluations/metrics/refresh", { metrics: { run_id: run.id } });
    const again = await p.ok("POST", "/evaluations/metrics/query", { metrics: { run_id: run.id, scenario_ids: false } });
    expect(again.metrics.map((m: any) => m.id)).toEqual([global.metrics[0].id]);
  });

  it("scores a run its client drives from the root spans the client sent over OTLP (the reference SDK's aevaluate)", async () => {
    const traceIds = [0.9, 0.3].map(() => randomHex(16));
    const spans = traceIds.map((traceId, i) => ({
      traceId, spanId: randomHex(8), name: "evaluator", start: 1_700_000_000_000_000_000n, end: 1_700_000_000_250_000_000n,
      attributes: attributes({
        "ag.type.trace": "annotation", "ag.type.span": "workflow",
        "ag.data.outputs.score": [0.9, 0.3][i]!, "ag.data.outputs.success": i === 0,
      }),
    }));
    const sent = await server.app.inject({
      method: "POST", url: "/api/otlp/v1/traces", payload: exportRequest(spans),
      headers: { authorization: `ApiKey ${p.key}`, "content-type": "application/x-protobuf" },
    });
    expect(sent.statusCode).toBe(200);
    const run = await newRun(p, { data: { steps: [{ key: "evaluator-sdk", type: "annotation", origin: "custom", references: {} }] } });
    const { scenarios } = await p.ok("POST", `/simple/evaluations/${run.id}/scenarios/add`, { count: 2 });
    await p.ok("POST", "/evaluations/results/", {
      results: scenarios.map((s: any, i: number) => ({
        run_id: run.id, scenario_id: s.id, step_key: "evaluator-sdk", trace_id: traceIds[i], status: "success",
      })),
    });
    const { metrics: [row] } = await p.ok("POST", "/evaluations/metrics/refresh", { metrics: { run_id: run.id } });
    const step = row.data["evaluator-sdk"];
    expect(step["attributes.ag.data.outputs.score"]).toMatchObject({ count: 2, min: 0.3, max: 0.9 });
    expect(step["attributes.ag.data.outputs.score"].mean).toBeCloseTo(0.6);
    expect(step["attributes.ag.data.outputs.success"].freq).toEqual(expect.arrayContaining([
      expect.objectContaining({ value: true, count: 1 }), expect.objectContaining({ value: false, count: 1 }),
    ]));
    expect(step["attributes.ag.metrics.duration.cumulative"]).toMatchObject({ count: 2, mean: 250 });
  });

  it("counts every result of a run longer than a page, a step the run does not name included", async () => {
    const steps = [
      { key: "testset", type: "input", origin: "auto", references: {} },
      { key: "judge", type: "annotation", origin: "auto", references: {} },
    ];
    const run = await newRun(p, { data: { steps } });
    const { scenarios } = await p.ok("POST", `/simple/evaluations/${run.id}/scenarios/add`, { count: 2500 });
    const results = scenarios.flatMap((s: any, i: number) => [
      { run_id: run.id, scenario_id: s.id, step_key: "testset", status: "success" },
      { run_id: run.id, scenario_id: s.id, step_key: "judge", status: i % 100 === 0 ? "failure" : "success" },
      ...(i < 3 ? [{ run_id: run.id, scenario_id: s.id, step_key: "extra", status: "success" }] : []),
    ]);
    await p.ok("POST", "/evaluations/results/", { results });
    const { metrics: [row] } = await p.ok("POST", "/evaluations/metrics/refresh", { metrics: { run_id: run.id } });
    expect(Object.keys(row.data).sort()).toEqual(["extra", "judge"]); // input steps are not aggregated
    expect(row.data.judge["attributes.ag.metrics.errors.cumulative"]).toMatchObject({ count: 2500, sum: 25 });
    expect(row.data.extra["attributes.ag.metrics.errors.cumulative"]).toMatchObject({ count: 3, sum: 0 });
  });
});

describe("metrics as the reference's clients read and write them", () => {
  const unknown = "0190d0d0-0000-7000-8000-000000000001";

  it("fetches a metric by id as a list, deletes it answering metrics_ids, and refuses a scenario and a timestamp together", async () => {
    const run = await newRun();
    const [metric] = (await p.ok("POST", "/evaluations/metrics/", {
      metrics: [{ run_id: run.id, status: "success", data: { integer_metric: 42, boolean_metric: true } }],
    })).metrics;
    const fetched = await p.ok("GET", `/evaluations/metrics/${metric.id}`);
    expect(fetched.count).toBe(1);
    expect(fetched.metrics[0]).toMatchObject({ id: metric.id, data: { integer_metric: 42, boolean_metric: true } });
    expect(await p.ok("DELETE", `/evaluations/metrics/${metric.id}`)).toEqual({ count: 1, metrics_ids: [metric.id] });
    expect(await p.ok("DELETE", `/evaluations/metrics/${metric.id}`)).toEqual({ count: 0, metrics_ids: [] });
    expect(await p.ok("GET", `/evaluations/metrics/${metric.id}`)).toMatchObject({ count: 0, metrics: [] });

    const both = await p.call("POST", "/evaluations/metrics/", {
      metrics: [{ run_id: run.id, scenario_id: run.id, timestamp: "2026-01-01T00:00:00+00:00", status: "success", data: {} }],
    });
    expect(both.statusCode).toBe(422);
    expect(JSON.stringify(both.json().detail)).toContain("scenario_id or a timestamp, not both");
  });

  it("refreshes nothing where there is nothing to measure: no run, a bare run, unknown scenarios; run_ids win over run_id", async () => {
    const none = { count: 0, metrics: [] };
    expect(await p.ok("POST", "/evaluations/metrics/refresh", { metrics: {} })).toMatchObject(none);
    expect(await p.ok("POST", "/evaluations/metrics/refresh", { metrics: { run_id: unknown } })).toMatchObject(none);
    const bare = await newRun();
    expect(await p.ok("POST", "/evaluations/metrics/refresh", { metrics: { run_id: bare.id } })).toMatchObject(none);
    expect(await p.ok("POST", "/evaluations/metrics/refresh", {
      metrics: { run_id: bare.id, timestamps: ["2026-01-01T00:00:00Z"], interval: 3600 },
    })).toMatchObject(none);
    const steps = [{ key: "judge", type: "annotation", origin: "auto", references: {} }];
    const judged = await newRun(p, { data: { steps } });
    expect(await p.ok("POST", "/evaluations/metrics/refresh", {
      metrics: { run_id: judged.id, scenario_ids: [unknown] },
    })).toMatchObject(none);
    const other = await newRun();
    expect(await p.ok("POST", "/evaluations/metrics/refresh", { metrics: { run_ids: [bare.id, other.id], run_id: judged.id } }))
      .toMatchObject(none);
    expect((await p.ok("POST", "/evaluations/metrics/refresh", { metrics: { run_id: judged.id } })).count).toBe(1);
  });
});

describe("bulk rows (copyRows, as a plan and its batches store scenarios and results)", () => {
  it("stores through COPY exactly what an insert stores, escapes and all", async () => {
    const run = await newRun();
    const scope = { projectId: p.id, userId: p.userId };
    const awkward = {
      text: "tab\there, line\nbreak, cr\rreturn, back\\slash, \\N, quote \" é 🎉", list: [1, null, "\\t"],
    };
    const items = [
      { run_id: run.id, status: "success", tags: awkward, meta: "a \\ string\twith\ttabs" },
      {
        run_id: run.id, status: "odd\tstatus\r\nwith \\N and \\", flags: { is_reused: true },
        timestamp: new Date("2026-01-02T03:04:05.678Z"), interval: 7,
      },
    ];
    const copied = await copyRows(server.db, scope, scenarios, items);
    const inserted = await insertRows(server.db, scope, scenarios, items, { returning: false });
    const read = async (rows: Row[]) => (await fetchRows(server.db, scope, scenarios, rows.map((r) => r.id as string)))
      .map(({ id: _, created_at: __, ...rest }) => rest);
    expect(await read(copied)).toEqual(await read(inserted));
    const [first, second] = await read(copied);
    expect(first).toMatchObject({ tags: awkward, meta: "a \\ string\twith\ttabs", status: "success" });
    expect(second).toMatchObject({
      status: "odd\tstatus\r\nwith \\N and \\", flags: { is_reused: true },
      timestamp: "2026-01-02T03:04:05.678Z", interval: 7,
    });
  });

  it("stores a batch's results over the ones a client already set in their slots, as an insert does", async () => {
    const run = await newRun();
    const scope = { projectId: p.id, userId: p.userId };
    const [scenario] = (await p.ok("POST", "/evaluations/scenarios/", { scenarios: [{ run_id: run.id }] })).scenarios;
    const slot = { run_id: run.id, scenario_id: scenario.id, repeat_idx: 0 };
    await p.ok("POST", "/evaluations/results/", { results: [{ ...slot, step_key: "judge", status: "failure" }] });
    // One slot is taken, one is free: the COPY gives way, and the rows go in as an upsert in the same transaction.
    await server.db.transaction((tx) => copyRows(tx, scope, results, [
      { ...slot, step_key: "judge", status: "success", trace_id: "a".repeat(32) },
      { ...slot, step_key: "app", status: "success" },
    ]));
    const stored = await p.ok("POST", "/evaluations/results/query", { result: { run_id: run.id } });
    expect(stored.results.map((r: Row) => [r.step_key, r.status, r.trace_id]).sort()).toEqual([
      ["app", "success", null], ["judge", "success", "a".repeat(32)],
    ]);
  });
});
