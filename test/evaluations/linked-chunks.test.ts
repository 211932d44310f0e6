import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestProject, type TestServer } from "../support/server.ts";
import { finishedEvaluation } from "../support/evaluations.ts";

// A cached re-run links the leaf chunks of its testset revision that an earlier run with the same steps completed,
// instead of storing copies of their scenarios and results; reads of the run take the linked rows as its own.

let server: TestServer;
let p: TestProject;

beforeAll(async () => {
  server = await startTestServer();
  p = await server.project();
});

afterAll(() => server.close());

// At least two leaf chunks (they hold at most 4,096 testcases), so a row appended leaves one as it was.
const ROWS = 5000;

const finished = (id: string) => finishedEvaluation((path) => p.ok("GET", path), id);

const progress = async (id: string) => (await p.ok("GET", `/simple/evaluations/${id}/progress`)).progress;

async function evaluate(revisionId: string, steps: object, cached = true) {
  const { evaluation } = await p.ok("POST", "/simple/evaluations/", {
    evaluation: { flags: { is_cached: cached }, data: { testset_steps: [revisionId], ...steps } },
  });
  return finished(evaluation.id);
}

/** Every row of a query, page by page. */
async function all(path: string, noun: string, key: string, filter: object) {
  const rows: any[] = [];
  for (let windowing: object | undefined = { limit: 1000 }; windowing;) {
    const page: any = await p.ok("POST", path, { [key]: filter, windowing });
    rows.push(...page[noun]);
    windowing = page.windowing?.next ? { limit: 1000, next: page.windowing.next } : undefined;
  }
  return rows;
}

const scenariosOf = (runId: string) => all("/evaluations/scenarios/query", "scenarios", "scenario", { run_id: runId });
const resultsOf = (runId: string, stepKey: string) =>
  all("/evaluations/results/query", "results", "result", { run_id: runId, step_key: stepKey });

const scenarioMetricsOf = (runId: string) =>
  all("/evaluations/metrics/query", "metrics", "metrics", { run_id: runId, scenario_ids: true });

/** Rows the database holds under the run itself. */
async function stored(runId: string) {
  const [row] = await server.db.query<{ scenarios: number; results: number }>(
    `SELECT (SELECT count(*)::int FROM evaluation_scenarios WHERE run_id = $1) AS scenarios,
       (SELECT count(*)::int FROM evaluation_results WHERE run_id = $1) AS results`,
    [runId],
  );
  return row!;
}

/** Scenario (variational) metrics rows the database holds under the run itself. */
async function storedScenarioMetrics(runId: string) {
  const [row] = await server.db.query<{ count: number }>(
    "SELECT count(*)::int AS count FROM evaluation_metrics WHERE run_id = $1 AND scenario_id IS NOT NULL",
    [runId],
  );
  return row!.count;
}

/** The chunks a run recorded: those it holds (`own`) and those it links. */
const chunksOf = (runId: string) => server.db.query<{ chunk: string; own: boolean; count: number }>(
  "SELECT chunk, source_run_id = run_id AS own, count FROM evaluation_run_chunks WHERE run_id = $1",
  [runId],
);

async function testset(slug: string, rows: object[]) {
  const testcases = rows.map((data) => ({ data }));
  return (await p.ok("POST", "/simple/testsets/", { testset: { slug, data: { testcases } } })).testset;
}

async function fixture(prefix: string) {
  const ts = await testset(`${prefix}-rows`, Array.from({ length: ROWS }, (_, n) => ({ n: String(n) })));
  const app = (await p.ok("POST", "/simple/applications/", {
    application: { slug: `${prefix}-echo`, data: { uri: "agenta:custom:mock:v0", parameters: { key: "echo" } } },
  })).application;
  const judge = (await p.ok("POST", "/simple/evaluators/", {
    evaluator: { slug: `${prefix}-pass`, data: { uri: "agenta:custom:mock:v0", parameters: { key: "pass" } } },
  })).evaluator;
  const steps = { application_steps: [app.revision_id], evaluator_steps: [judge.revision_id] };
  const commit = await p.ok("POST", "/testsets/revisions/commit", {
    testset_revision_commit: { testset_id: ts.id, delta: { rows: { add: [{ data: { n: "new" } }] } } },
  });
  return { ts, steps, next: commit.testset_revision.id as string };
}

describe("a cached re-run after a small commit", () => {
  it("links the chunks an earlier run completed: stores rows for the changed chunk only, reads whole", async () => {
    const { ts, steps, next } = await fixture("link");
    const first = await evaluate(ts.revision_id, steps);
    expect(await progress(first.id)).toMatchObject({
      status: "success", scenarios: ROWS, cells: { invoked: 2 * ROWS, reused: 0 },
    });

    const again = await evaluate(next, steps);
    expect(await progress(again.id)).toMatchObject({
      status: "success", scenarios: ROWS + 1, succeeded: ROWS + 1, cells: { invoked: 2, reused: 2 * ROWS },
    });
    // Only the chunk the commit changed has rows of the re-run's own; the others are linked, from the first run.
    const before = new Set((await chunksOf(first.id)).map((c) => c.chunk));
    const after = await chunksOf(again.id);
    const linked = after.filter((c) => !c.own);
    expect(linked.length).toBeGreaterThan(0);
    expect(linked.every((c) => before.has(c.chunk))).toBe(true);
    expect(after.filter((c) => c.own).every((c) => !before.has(c.chunk))).toBe(true);
    const linkedScenarios = linked.reduce((n, c) => n + c.count, 0);
    expect((await progress(again.id)).linked).toBe(linkedScenarios);
    const own = await stored(again.id);
    expect(own.scenarios).toBe(ROWS + 1 - linkedScenarios);
    expect(own.results).toBe(3 * own.scenarios); // input, application, evaluator

    // Read through the API, the run has every scenario and result, as its own.
    const scenarios = await scenariosOf(again.id);
    expect(scenarios).toHaveLength(ROWS + 1);
    expect(new Set(scenarios.map((s) => s.id)).size).toBe(ROWS + 1);
    expect(scenarios.every((s) => s.run_id === again.id && s.status === "success")).toBe(true);
    const { run } = await p.ok("GET", `/evaluations/runs/${again.id}`);
    const [inputKey, , judgeKey] = run.data.steps.map((s: { key: string }) => s.key);
    const inputs = await resultsOf(again.id, inputKey);
    const { testcases } = (await p.ok("POST", "/testsets/revisions/retrieve", {
      testset_revision_ref: { id: next }, include_testcases: true,
    })).testset_revision.data;
    expect(new Set(inputs.map((r) => r.testcase_id))).toEqual(new Set(testcases.map((t: { id: string }) => t.id)));
    const graded = await resultsOf(again.id, judgeKey);
    expect(graded).toHaveLength(ROWS + 1);
    expect(graded.filter((r) => !r.flags.is_reused)).toHaveLength(1);
    const ids = scenarios.map((s) => s.id);
    expect(ids).toEqual([...ids].sort()); // in id order, across linked and own rows

    // Each scenario has its metrics: the re-run stored those of its own scenarios only, and reads the first run's
    // rows for the scenarios of the chunks it links, as its own.
    expect(await storedScenarioMetrics(first.id)).toBe(ROWS);
    expect(await storedScenarioMetrics(again.id)).toBe(own.scenarios);
    const perScenario = await scenarioMetricsOf(again.id);
    expect(perScenario.map((m) => m.scenario_id).sort()).toEqual(ids); // in metric id order: compare as sets
    expect(perScenario.every((m) => m.run_id === again.id && m.timestamp === null)).toBe(true);
    expect(perScenario.every((m) => m.data[judgeKey]["attributes.ag.data.outputs.success"].count === 1)).toBe(true);

    const metricsOf = async (runId: string) => {
      const query = { metrics: { run_id: runId, scenario_ids: false } };
      const { metrics } = await p.ok("POST", "/evaluations/metrics/query", query);
      return metrics[0].data;
    };
    const graderSuccess = async (runId: string) =>
      (await metricsOf(runId))[judgeKey]["attributes.ag.data.outputs.success"];
    expect(await graderSuccess(again.id)).toMatchObject({ count: ROWS + 1 });

    // The linked chunks' metrics were merged from what the first run stored for them: the same as reading their
    // results.
    const merged = await metricsOf(again.id);
    expect(merged[judgeKey]["attributes.ag.metrics.duration.cumulative"]).toMatchObject({ count: ROWS + 1 });
    await server.db.query("UPDATE evaluation_run_chunks SET metrics = NULL WHERE run_id = $1", [first.id]);
    await p.ok("POST", "/evaluations/metrics/refresh", { metrics: { run_id: again.id } });
    expect(await metricsOf(again.id)).toEqual(merged);
    // A linked scenario's own metrics.
    const scenarioQuery = { metrics: { run_id: again.id, scenario_id: ids[0] } };
    const refreshed = await p.ok("POST", "/evaluations/metrics/refresh", scenarioQuery);
    const [one] = refreshed.metrics;
    expect(one.data[judgeKey]["attributes.ag.data.outputs.success"]).toMatchObject({ count: 1 });
    expect(one).toMatchObject({ run_id: again.id, scenario_id: ids[0] });
    // ... refreshed where it is held: still one row for the scenario.
    expect(await storedScenarioMetrics(again.id)).toBe(own.scenarios);
    expect((await scenarioMetricsOf(again.id)).filter((m) => m.scenario_id === ids[0])).toHaveLength(1);

    const { comparison } = await p.ok("POST", "/evaluations/runs/compare", { run_ids: [first.id, again.id] });
    expect(comparison.scenarios).toMatchObject({ matched: ROWS, unmatched: 1, changed_count: 0 });

    // The first run's rows are the re-run's too: a write to them is refused, and says why.
    const [result] = (await p.ok("POST", "/evaluations/results/query", {
      result: { run_id: first.id, step_key: judgeKey }, windowing: { limit: 1 },
    })).results;
    const refused = await p.ok("POST", "/evaluations/results/", {
      results: [{ run_id: first.id, scenario_id: result.scenario_id, step_key: judgeKey, status: "failure" }],
    }, 409);
    expect(refused.detail).toContain(`run ${again.id} reuses`);

    // Deleting the first run hands its rows to the re-run, which reads as before.
    await p.ok("DELETE", `/evaluations/runs/${first.id}`);
    expect(await stored(again.id)).toEqual({ scenarios: ROWS + 1, results: 3 * (ROWS + 1) });
    expect((await progress(again.id)).linked).toBe(0);
    expect((await scenariosOf(again.id)).map((s) => s.id)).toEqual(ids);
    expect(await progress(again.id)).toMatchObject({ scenarios: ROWS + 1, cells: { invoked: 2, reused: 2 * ROWS } });
    expect(await graderSuccess(again.id)).toMatchObject({ count: ROWS + 1 });
    expect(await storedScenarioMetrics(again.id)).toBe(ROWS + 1);
    expect((await scenarioMetricsOf(again.id)).map((m) => m.scenario_id).sort()).toEqual(ids);

    // ... and a third run links what is now the re-run's.
    const third = await evaluate(next, steps);
    expect(await progress(third.id)).toMatchObject({
      scenarios: ROWS + 1, cells: { invoked: 0, reused: 2 * (ROWS + 1) },
    });
    expect(await stored(third.id)).toEqual({ scenarios: 0, results: 0 });
    expect(await storedScenarioMetrics(third.id)).toBe(0);
    expect(await scenariosOf(third.id)).toHaveLength(ROWS + 1);
    expect(await scenarioMetricsOf(third.id)).toHaveLength(ROWS + 1);
  });

  it("does not link chunks of a run without the flag, or a chunk with a failed scenario", async () => {
    const { ts, steps } = await fixture("nolink");
    const first = await evaluate(ts.revision_id, steps);
    // Without is_cached the run invokes everything, and links nothing.
    const plain = await evaluate(ts.revision_id, steps, false);
    expect(await progress(plain.id)).toMatchObject({ scenarios: ROWS, cells: { invoked: 2 * ROWS, reused: 0 } });
    expect(await stored(plain.id)).toEqual({ scenarios: ROWS, results: 3 * ROWS });
    expect((await progress(first.id)).cells.invoked).toBe(2 * ROWS);

    const small = await testset("nolink-fragile", [{ n: 1 }, { n: 0 }, { n: 2 }]);
    const fragile = (await p.ok("POST", "/simple/applications/", {
      application: {
        slug: "nolink-fragile",
        data: {
          uri: "svc:custom:code:v0", script: "function run(i) { if (!i.n) throw new Error('no n'); return i.n; }",
        },
      },
    })).application;
    const once = await evaluate(small.revision_id, { application_steps: [fragile.revision_id] });
    expect(once.data.status).toBe("errors");
    // The testset's one chunk had a failure: the re-run plans its scenarios, reuses the two successes, and
    // invokes the failed one again.
    const twice = await evaluate(small.revision_id, { application_steps: [fragile.revision_id] });
    expect(await progress(twice.id)).toMatchObject({ scenarios: 3, cells: { invoked: 1, reused: 2, failed: 1 } });
    expect((await stored(twice.id)).scenarios).toBe(3);
  });
});
