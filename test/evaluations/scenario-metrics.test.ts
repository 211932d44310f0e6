import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestProject, type TestServer } from "../support/server.ts";
import { finishedEvaluation } from "../support/evaluations.ts";

// A batch run stores, beside its global metrics, one metrics row a scenario (variational: scenario_id set, no
// timestamp), over the scenario's repeats, in the same per-step shape.

let server: TestServer;
let p: TestProject;

beforeAll(async () => {
  server = await startTestServer();
  p = await server.project();
});

afterAll(() => server.close());

const SCORE = "attributes.ag.data.outputs.score";
const DURATION = "attributes.ag.metrics.duration.cumulative";

const queryMetrics = async (filter: object) =>
  (await p.ok("POST", "/evaluations/metrics/query", { metrics: filter, windowing: { limit: 1000 } })).metrics;

async function scoredRun(prefix: string, rows: number, repeats: number) {
  const testcases = Array.from({ length: rows }, (_, n) => ({ data: { n: String(n) } }));
  const ts = (await p.ok("POST", "/simple/testsets/", { testset: { slug: `${prefix}-rows`, data: { testcases } } }))
    .testset;
  const app = (await p.ok("POST", "/simple/applications/", {
    application: { slug: `${prefix}-echo`, data: { uri: "agenta:custom:mock:v0", parameters: { key: "echo" } } },
  })).application;
  const judge = (await p.ok("POST", "/simple/evaluators/", {
    evaluator: {
      slug: `${prefix}-score`,
      data: { uri: "agenta:custom:mock:v0", parameters: { key: "score", kwargs: { score: 0.7, threshold: 0.5 } } },
    },
  })).evaluator;
  const { evaluation } = await p.ok("POST", "/simple/evaluations/", {
    evaluation: {
      data: {
        testset_steps: [ts.revision_id], application_steps: [app.revision_id], evaluator_steps: [judge.revision_id],
        repeats,
      },
    },
  });
  const run = await finishedEvaluation((path) => p.ok("GET", path), evaluation.id);
  const keys = (await p.ok("GET", `/evaluations/runs/${run.id}`)).run.data.steps.map((s: { key: string }) => s.key);
  return { run, appKey: keys[1] as string, judgeKey: keys[2] as string };
}

/** Scenario rows of the run stored compact: their partials, no statistics. */
async function compactRows(runId: string) {
  const [row] = await server.db.query<{ count: number }>(
    `SELECT count(*)::int AS count FROM evaluation_metrics
     WHERE run_id = $1 AND scenario_id IS NOT NULL AND data IS NULL AND partials IS NOT NULL`,
    [runId],
  );
  return row!.count;
}

describe("variational metrics of a batch run", () => {
  it("stores a row a scenario beside the global one, over its repeats, filtered as the reference", async () => {
    const { run, appKey, judgeKey } = await scoredRun("var", 3, 2);
    expect(run.data.status).toBe("success");
    const scenarios = (await p.ok("POST", "/evaluations/scenarios/query", { scenario: { run_id: run.id } })).scenarios;
    const ids = scenarios.map((s: { id: string }) => s.id).sort();

    const all = await queryMetrics({ run_id: run.id });
    expect(all).toHaveLength(4);
    const global = all.filter((m: any) => m.scenario_id === null);
    expect(global).toHaveLength(1);
    expect(global[0].data[judgeKey][SCORE]).toMatchObject({ count: 6, min: 0.7, max: 0.7 });
    expect(global[0].data[judgeKey][SCORE].mean).toBeCloseTo(0.7, 12);
    const variational = all.filter((m: any) => m.scenario_id !== null);
    expect(variational.map((m: any) => m.scenario_id).sort()).toEqual(ids);
    for (const m of variational) {
      expect(m).toMatchObject({ run_id: run.id, timestamp: null, status: "success" });
      expect(m.data[judgeKey][SCORE]).toMatchObject({ type: "numeric/continuous", count: 2, min: 0.7, max: 0.7 });
      expect(m.data[judgeKey][SCORE].mean).toBeCloseTo(0.7, 12);
      expect(m.data[appKey][DURATION]).toMatchObject({ count: 2 });
      // The same shape as the global row: the same steps and metric paths.
      expect(Object.keys(m.data).sort()).toEqual(Object.keys(global[0].data).sort());
      expect(Object.keys(m.data[judgeKey]).sort()).toEqual(Object.keys(global[0].data[judgeKey]).sort());
    }

    // Stored compact, as what the statistics are computed from (migration 033), and read as the statistics.
    expect(await compactRows(run.id)).toBe(3);

    // The reference's selectors: scenario_ids false is the run-wide row, true the per-scenario rows.
    expect(await queryMetrics({ run_id: run.id, scenario_ids: false })).toHaveLength(1);
    expect(await queryMetrics({ run_id: run.id, scenario_ids: true })).toHaveLength(3);
    const [one] = await queryMetrics({ run_id: run.id, scenario_id: ids[0] });
    expect(one.scenario_id).toBe(ids[0]);

    // A refresh of scenarios recomputes their rows from the stored results: what the batch stored.
    const refreshed = (await p.ok("POST", "/evaluations/metrics/refresh", {
      metrics: { run_id: run.id, scenario_ids: ids.slice(0, 2) },
    })).metrics;
    expect(refreshed.map((m: any) => m.scenario_id).sort()).toEqual(ids.slice(0, 2));
    for (const m of refreshed) {
      const stored = variational.find((v: any) => v.scenario_id === m.scenario_id);
      expect(m.data).toEqual(stored.data);
      expect(m.run_id).toBe(run.id);
    }
    expect(await compactRows(run.id)).toBe(1); // a refresh stores the statistics themselves
    const single = (await p.ok("POST", "/evaluations/metrics/refresh", {
      metrics: { run_id: run.id, scenario_id: ids[2] },
    })).metrics;
    expect(single.map((m: any) => m.scenario_id)).toEqual([ids[2]]);
    expect(await queryMetrics({ run_id: run.id })).toHaveLength(4); // refreshed in place
    // run_ids refresh the global rows only, as in the reference.
    const globals = (await p.ok("POST", "/evaluations/metrics/refresh", {
      metrics: { run_ids: [run.id], scenario_ids: ids },
    })).metrics;
    expect(globals.map((m: any) => m.scenario_id)).toEqual([null]);

    // Pruning a scenario's evaluator results recomputes its row without them.
    await p.ok("POST", `/simple/evaluations/${run.id}/prune`, { scenario_ids: [ids[0]], step_keys: [judgeKey] }, 204);
    const [pruned] = await queryMetrics({ run_id: run.id, scenario_id: ids[0] });
    expect(pruned.data[judgeKey]).toBeUndefined();
    expect(pruned.data[appKey][DURATION]).toMatchObject({ count: 2 });
    // ... and removing a scenario removes its row.
    await p.ok("POST", `/simple/evaluations/${run.id}/scenarios/remove`, { scenario_ids: [ids[1]] }, 204);
    expect(await queryMetrics({ run_id: run.id, scenario_ids: true })).toHaveLength(2);
  });

  it("answers a client's metrics set over a batch's row as the client set them", async () => {
    const { run, judgeKey } = await scoredRun("var-set", 1, 1);
    const [stored] = await queryMetrics({ run_id: run.id, scenario_ids: true });
    expect(stored.data[judgeKey][SCORE]).toMatchObject({ count: 1, mean: 0.7 });
    const data = { [judgeKey]: { [SCORE]: { type: "numeric/continuous", count: 1, mean: 0.1 } } };
    const [set] = (await p.ok("PUT", "/evaluations/metrics/", {
      metrics: [{ run_id: run.id, scenario_id: stored.scenario_id, status: "success", data }],
    })).metrics;
    expect(set.id).toBe(stored.id);
    expect(set.data).toEqual(data);
    expect((await queryMetrics({ run_id: run.id, scenario_ids: true }))[0].data).toEqual(data);
    expect(await compactRows(run.id)).toBe(0);
  });

  it("stores a scenario's row with a batch of many scenarios, in statements of a batch", async () => {
    const { run, judgeKey } = await scoredRun("var-many", 450, 1);
    const variational = await queryMetrics({ run_id: run.id, scenario_ids: true });
    expect(variational).toHaveLength(450);
    expect(variational.every((m: any) => m.data[judgeKey][SCORE].count === 1)).toBe(true);
  });
});
