import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BATCH_QUEUE } from "../../src/evaluations/execution/run-end.ts";
import { countByStatus } from "../../src/jobs/queue.ts";
import { startTestServer, type TestProject, type TestServer } from "../support/server.ts";
import { finishedEvaluation } from "../support/evaluations.ts";
import { randomUUID as uuidv4 } from "node:crypto";

let server: TestServer;
let p: TestProject;

beforeAll(async () => {
  server = await startTestServer();
  p = await server.project();
});

afterAll(() => server.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const finished = (id: string, project = p) => finishedEvaluation((path) => project.ok("GET", path), id);

const progress = async (id: string) => (await p.ok("GET", `/simple/evaluations/${id}/progress`)).progress;

async function testset(slug: string, rows: object[]) {
  return (await p.ok("POST", "/simple/testsets/", { testset: { slug, data: { testcases: rows.map((data) => ({ data })) } } })).testset;
}

async function fixture(prefix: string) {
  const ts = await testset(`${prefix}-capitals`, [
    { country: "France", answer: "Paris" }, { country: "Japan", answer: "Tokyo" }, { country: "Peru", answer: "Cusco" },
  ]);
  const app = (await p.ok("POST", "/simple/applications/", {
    application: {
      slug: `${prefix}-geo`,
      data: {
        uri: "svc:custom:code:v0",
        script: "function run(inputs) { return ({France: 'Paris', Japan: 'Tokyo', Peru: 'Lima'})[inputs.country]; }",
      },
    },
  })).application;
  const judge = (await p.ok("POST", "/simple/evaluators/", {
    evaluator: { slug: `${prefix}-exact`, data: { uri: "agenta:builtin:auto_exact_match:v0", parameters: { correct_answer_key: "answer" } } },
  })).evaluator;
  return { ts, app, judge };
}

describe("server-run evaluations (POST /simple/evaluations/)", () => {
  it("runs testset → application → evaluator, pinning every revision, and ends with results and metrics", async () => {
    const { ts, app, judge } = await fixture("pin");
    const created = await p.ok("POST", "/simple/evaluations/", {
      evaluation: {
        name: "geo v1",
        data: { testset_steps: [ts.revision_id], application_steps: [app.revision_id], evaluator_steps: { [judge.revision_id]: "auto" } },
      },
    });
    expect(created.evaluation).toMatchObject({
      name: "geo v1", flags: { is_active: true, has_testsets: true, has_evaluators: true, has_auto: true },
      data: {
        testset_steps: { [ts.revision_id]: "custom" }, application_steps: { [app.revision_id]: "custom" },
        evaluator_steps: { [judge.revision_id]: "auto" },
      },
    });
    // A later commit to the testset changes nothing about the run: it pinned the revision.
    await p.ok("POST", "/testsets/revisions/commit", {
      testset_revision_commit: { testset_id: ts.id, delta: { rows: { add: [{ data: { country: "Chile", answer: "Santiago" } }] } } },
    });
    const done = await finished(created.evaluation.id);
    // Every step ran: a wrong answer is the evaluator's verdict (in its outputs and metrics), not a failed scenario.
    expect(done.data.status).toBe("success");
    expect(await progress(done.id)).toMatchObject({ scenarios: 3, done: 3, succeeded: 3, failed: 0, cells: { invoked: 6, reused: 0 } });

    const { run } = await p.ok("GET", `/evaluations/runs/${done.id}`);
    expect(run.data.steps.map((s: any) => [s.key.split("-")[0], s.type, s.origin])).toEqual([
      ["testset", "input", "custom"], ["application", "invocation", "custom"], ["evaluator", "annotation", "auto"],
    ]);
    expect(run.data.steps[0].references.testset_revision.id).toBe(ts.revision_id);
    expect(run.data.steps[1].references.application_revision.id).toBe(app.revision_id);

    const { results } = await p.ok("POST", "/evaluations/results/query", { result: { run_id: done.id, step_keys: [run.data.steps[2].key] } });
    expect(results).toHaveLength(3);
    expect(results.every((r: any) => r.status === "success" && r.hash_id && r.testcase_id)).toBe(true);
    const metrics = (await p.ok("POST", "/evaluations/metrics/query", { metrics: { run_id: done.id, scenario_ids: false } })).metrics[0];
    expect(metrics.data[run.data.steps[2].key]["attributes.ag.data.outputs.success"]).toMatchObject({
      type: "binary", count: 3, freq: [{ value: true, count: 2 }, { value: false, count: 1 }],
    });
    const trace = (await p.ok("GET", `/traces/${results[0].trace_id}`)).trace;
    expect(trace.outputs).toHaveProperty("success");
  });

  it("ends with the metrics its batches kept as they ran, the same as read back from results and traces", async () => {
    const { ts, app, judge } = await fixture("merged");
    const data = {
      testset_steps: [ts.revision_id], application_steps: [app.revision_id], evaluator_steps: [judge.revision_id],
    };
    const start = async () => {
      const { evaluation } = await p.ok("POST", "/simple/evaluations/", { evaluation: { data } });
      return (await finished(evaluation.id)).id as string;
    };
    const metricsOf = async (runId: string) => {
      const query = { metrics: { run_id: runId, scenario_ids: false } };
      return (await p.ok("POST", "/evaluations/metrics/query", query)).metrics[0].data;
    };
    const kept = async (runId: string) => (await server.db.query<{ cells: number | null }>(
      "SELECT sum(cells)::int AS cells FROM evaluation_batch_metrics WHERE run_id = $1", [runId],
    ))[0]!.cells;

    const merged = await start();
    expect(await kept(merged)).toBe(6);
    const atEnd = await metricsOf(merged);
    await server.db.query("DELETE FROM evaluation_batch_metrics WHERE run_id = $1", [merged]);
    await p.ok("POST", "/evaluations/metrics/refresh", { metrics: { run_id: merged } });
    expect(await metricsOf(merged)).toEqual(atEnd);

    // A client's change to a result: the run's metrics are read from its results from then on.
    const edited = await start();
    const { run } = await p.ok("GET", `/evaluations/runs/${edited}`);
    const evaluatorKey = run.data.steps[2].key;
    const errors = async () => (await metricsOf(edited))[evaluatorKey]["attributes.ag.metrics.errors.cumulative"].sum;
    expect(await errors()).toBe(0);
    const query = { result: { run_id: edited, step_keys: [evaluatorKey] } };
    const { results } = await p.ok("POST", "/evaluations/results/query", query);
    await p.ok("PATCH", "/evaluations/results/", { results: [{ ...results[0], status: "failure" }] });
    expect(await kept(edited)).toBeNull();
    await p.ok("POST", "/evaluations/metrics/refresh", { metrics: { run_id: edited } });
    expect(await errors()).toBe(1);
  });

  it("reuses earlier results for the same revisions and testcases, so a delta re-run invokes only what changed", async () => {
    const { ts, app, judge } = await fixture("reuse");
    const steps = { application_steps: [app.revision_id], evaluator_steps: [judge.revision_id] };
    const first = await p.ok("POST", "/simple/evaluations/", { evaluation: { flags: { is_cached: true }, data: { testset_steps: [ts.revision_id], ...steps } } });
    await finished(first.evaluation.id);
    expect((await progress(first.evaluation.id)).cells).toMatchObject({ invoked: 6, reused: 0 });

    const again = await p.ok("POST", "/simple/evaluations/", { evaluation: { flags: { is_cached: true }, data: { testset_steps: [ts.revision_id], ...steps } } });
    // Every cell of every scenario had an earlier result: the plan stores the scenarios done, and the run
    // ends with its metrics.
    expect((await finished(again.evaluation.id)).data.status).toBe("success");
    expect(await progress(again.evaluation.id)).toMatchObject({
      scenarios: 3, succeeded: 3, cells: { invoked: 0, reused: 6 },
    });
    const batches = async (runId: string) => {
      const byStatus = await countByStatus(server.db, BATCH_QUEUE, { run_id: runId });
      return Object.values(byStatus).reduce((a, b) => a + b, 0);
    };
    expect(await batches(first.evaluation.id)).toBe(1);
    expect(await batches(again.evaluation.id)).toBe(0);
    const cellsOf = async (runId: string) => {
      const { results } = await p.ok("POST", "/evaluations/results/query", { result: { run_id: runId } });
      return results.filter((r: any) => r.hash_id).sort((a: any, b: any) => a.hash_id.localeCompare(b.hash_id));
    };
    const [earlier, reused] = [await cellsOf(first.evaluation.id), await cellsOf(again.evaluation.id)];
    expect(reused.map((r: any) => [r.hash_id, r.trace_id, r.status, r.flags])).toEqual(
      earlier.map((r: any) => [r.hash_id, r.trace_id, "success", { is_reused: true }]),
    );
    const scoreOf = async (runId: string) => {
      const query = { metrics: { run_id: runId, scenario_ids: false } };
      const { metrics } = await p.ok("POST", "/evaluations/metrics/query", query);
      return metrics[0].data;
    };
    expect(await scoreOf(again.evaluation.id)).toEqual(await scoreOf(first.evaluation.id));

    const commit = await p.ok("POST", "/testsets/revisions/commit", {
      testset_revision_commit: { testset_id: ts.id, delta: { rows: { add: [{ data: { country: "Chile", answer: "Santiago" } }] } } },
    });
    const delta = await p.ok("POST", "/simple/evaluations/", {
      evaluation: { flags: { is_cached: true }, data: { testset_steps: [commit.testset_revision.id], ...steps } },
    });
    const done = await finished(delta.evaluation.id);
    expect(await progress(done.id)).toMatchObject({ scenarios: 4, cells: { invoked: 2, reused: 6 } });
    expect(await batches(done.id)).toBe(1); // the new testcase's scenario alone

    // A new evaluator over the same application: its batch takes the application's earlier outputs and grades
    // them.
    const other = (await p.ok("POST", "/simple/evaluators/", {
      evaluator: {
        slug: "reuse-contains", data: { uri: "agenta:builtin:auto_contains:v0", parameters: { substring: "a" } },
      },
    })).evaluator;
    const graded = await p.ok("POST", "/simple/evaluations/", { evaluation: { flags: { is_cached: true }, data: {
      testset_steps: [ts.revision_id], application_steps: [app.revision_id], evaluator_steps: [other.revision_id],
    } } });
    expect((await finished(graded.evaluation.id)).data.status).toBe("success");
    expect(await progress(graded.evaluation.id)).toMatchObject({ scenarios: 3, cells: { invoked: 3, reused: 3 } });

    // Without the flag (the reference's default) nothing is reused.
    const fresh = await p.ok("POST", "/simple/evaluations/", { evaluation: { data: { testset_steps: [ts.revision_id], ...steps } } });
    await finished(fresh.evaluation.id);
    expect((await progress(fresh.evaluation.id)).cells).toMatchObject({ invoked: 6, reused: 0 });
  });

  it("records a failed invocation with its error and trace, skips its evaluators, and ends the run with errors", async () => {
    const ts = await testset("fragile-rows", [{ n: 1 }, { n: 0 }]);
    const app = (await p.ok("POST", "/simple/applications/", {
      application: { slug: "fragile", data: { uri: "svc:custom:code:v0", script: "function run(i) { if (!i.n) throw new Error('no n'); return i.n; }" } },
    })).application;
    const judge = (await p.ok("POST", "/simple/evaluators/", {
      evaluator: { slug: "fragile-exact", data: { uri: "agenta:builtin:auto_exact_match:v0", parameters: { correct_answer_key: "n" } } },
    })).evaluator;
    const created = await p.ok("POST", "/simple/evaluations/", {
      evaluation: { data: { testset_steps: [ts.revision_id], application_steps: [app.revision_id], evaluator_steps: [judge.revision_id] } },
    });
    const done = await finished(created.evaluation.id);
    expect(done.data.status).toBe("errors");
    expect(await progress(done.id)).toMatchObject({ scenarios: 2, succeeded: 1, failed: 1, cells: { invoked: 3, failed: 1 } });
    const { results } = await p.ok("POST", "/evaluations/results/query", { result: { run_id: done.id, status: "failure" } });
    expect(results).toHaveLength(1);
    expect(results[0].error.message).toContain("no n");
    expect((await p.ok("GET", `/traces/${results[0].trace_id}`)).trace.status.code).toBeGreaterThanOrEqual(400);
  });

  it("keeps progress through a restart of failed scenarios, and counts a client's writes to the run", async () => {
    const ts = await testset("restart-rows", [{ n: 2 }, { n: 0 }, { n: 3 }]);
    const app = (await p.ok("POST", "/simple/applications/", {
      application: { slug: "restart-app", data: { uri: "svc:custom:code:v0", script: "function run(i) { if (!i.n) throw new Error('no n'); return i.n; }" } },
    })).application;
    const created = await p.ok("POST", "/simple/evaluations/", { evaluation: { data: { testset_steps: [ts.revision_id], application_steps: [app.revision_id] } } });
    const expected = { scenarios: 3, done: 3, succeeded: 2, failed: 1, pending: 0, cells: { invoked: 3, reused: 0, failed: 1 } };
    expect(await progress((await finished(created.evaluation.id)).id)).toMatchObject({ status: "errors", ...expected });

    // Started again, the run retries its failed scenario (which fails again): nothing is counted twice.
    await p.ok("POST", `/simple/evaluations/${created.evaluation.id}/start`);
    await finished(created.evaluation.id);
    expect(await progress(created.evaluation.id)).toMatchObject(expected);

    // A result written by a client counts at once.
    const { results } = await p.ok("POST", "/evaluations/results/query", { result: { run_id: created.evaluation.id, status: "failure" } });
    const { scenario_id, step_key } = results[0];
    await p.ok("POST", "/evaluations/results/", { results: [{ run_id: created.evaluation.id, scenario_id, step_key, status: "success" }] });
    expect((await progress(created.evaluation.id)).cells).toMatchObject({ failed: 0 });
  });

  it("ends a finished run started again, and keeps the flags it was created with", async () => {
    const ts = await testset("finished-rows", [{ country: "Chile" }, { country: "Peru" }]);
    const echo = (await p.ok("POST", "/simple/applications/", {
      application: { slug: "finished-echo", data: { uri: "agenta:custom:mock:v0", parameters: { key: "echo" } } },
    })).application;
    const pass = (await p.ok("POST", "/simple/evaluators/", {
      evaluator: { slug: "finished-pass", data: { uri: "agenta:custom:mock:v0", parameters: { key: "pass" } } },
    })).evaluator;
    const created = await p.ok("POST", "/simple/evaluations/", {
      evaluation: {
        flags: { is_cached: true, is_split: true },
        data: { testset_steps: [ts.revision_id], application_steps: [echo.revision_id], evaluator_steps: { [pass.revision_id]: "auto" } },
      },
    });
    expect(created.evaluation.flags).toMatchObject({ is_cached: true, is_split: true });
    const id = created.evaluation.id;
    expect((await finished(id)).data.status).toBe("success");
    const restarted = await p.ok("POST", `/simple/evaluations/${id}/start`);
    expect(restarted.evaluation.flags).toMatchObject({ is_split: true });
    const again = await finished(id);
    expect(again.data.status).toBe("success");
    expect(again.flags).toMatchObject({ is_active: false, is_split: true });
    expect(await progress(id)).toMatchObject({ scenarios: 2, succeeded: 2, pending: 0 });
  });

  it("makes a run with a human evaluator a queue: its default queue holds it for annotation", async () => {
    const ts = await testset("human-rows", [{ q: "a" }]);
    const judge = (await p.ok("POST", "/simple/evaluators/", {
      evaluator: { slug: "human-judge", data: { uri: "agenta:custom:mock:v0", parameters: { key: "pass" } } },
    })).evaluator;
    const created = await p.ok("POST", "/simple/evaluations/", {
      evaluation: { data: { status: "running", testset_steps: [ts.revision_id], evaluator_steps: { [judge.revision_id]: "human" } } },
    });
    expect(created.evaluation.flags).toMatchObject({ has_human: true, has_testsets: true, is_queue: true });
    const queue = (await p.ok("GET", `/evaluations/runs/${created.evaluation.id}/queues/default`)).queue;
    expect(queue).toMatchObject({ run_id: created.evaluation.id, flags: { is_default: true } });
  });

  it("compares two runs: metric deltas, and the testcases whose results changed", async () => {
    const { ts, app, judge } = await fixture("compare");
    const fixed = await p.ok("POST", "/applications/revisions/commit", {
      application_revision_commit: {
        application_id: app.id,
        data: { uri: "svc:custom:code:v0", script: "function run(i) { return ({France: 'Paris', Japan: 'Tokyo', Peru: 'Cusco'})[i.country]; }" },
      },
    });
    const runWith = async (appRevision: string) => (await finished((await p.ok("POST", "/simple/evaluations/", {
      evaluation: { data: { testset_steps: [ts.revision_id], application_steps: [appRevision], evaluator_steps: [judge.revision_id] } },
    })).evaluation.id)).id;
    const before = await runWith(app.revision_id);
    const after = await runWith(fixed.application_revision.id);
    const { comparison } = await p.ok("POST", "/evaluations/runs/compare", { run_ids: [before, after] });
    expect(comparison.runs.map((r: any) => r.id)).toEqual([before, after]);
    const success = comparison.metrics.find((m: any) => m.path === "attributes.ag.data.outputs.success");
    expect(success.step).toMatchObject({ type: "annotation", artifact: `evaluator:${judge.id}` });
    expect(success.values[0]).toBeCloseTo(2 / 3, 4);
    expect(success.values[1]).toBe(1);
    expect(success.deltas[1]).toBeCloseTo(1 / 3, 4);
    expect(comparison.scenarios).toMatchObject({ matched: 3, unmatched: 0, changed_count: 1 });
    const [peru] = comparison.scenarios.changed;
    const evaluatorStep = peru.steps.find((s: any) => s.artifact === `evaluator:${judge.id}`);
    expect(evaluatorStep.results.map((r: any) => r.outputs.success)).toEqual([false, true]);
    expect((await p.call("POST", "/evaluations/runs/compare", { run_ids: [before] })).statusCode).toBe(422);
    // An evaluator only one run has changes no testcase: the others have no result of it to differ from.
    const extra = (await p.ok("POST", "/simple/evaluators/", {
      evaluator: { slug: "compare-extra", data: { uri: "agenta:custom:mock:v0", parameters: { key: "pass" } } },
    })).evaluator;
    const withExtra = (await finished((await p.ok("POST", "/simple/evaluations/", {
      evaluation: {
        data: { testset_steps: [ts.revision_id], application_steps: [fixed.application_revision.id], evaluator_steps: [judge.revision_id, extra.revision_id] },
      },
    })).evaluation.id)).id;
    const same = (await p.ok("POST", "/evaluations/runs/compare", { run_ids: [after, withExtra] })).comparison;
    expect(same.scenarios).toMatchObject({ matched: 3, unmatched: 0, changed_count: 0 });
    expect(same.metrics.find((m: any) => m.step.artifact === `evaluator:${extra.id}`)?.values).toEqual([null, 1]);

    // Every testcase changes against an application that answers nowhere: all are counted, a page is listed.
    const nowhere = await p.ok("POST", "/applications/revisions/commit", {
      application_revision_commit: { application_id: app.id, data: { uri: "svc:custom:code:v0", script: "function run() { return 'Nowhere'; }" } },
    });
    const lost = await runWith(nowhere.application_revision.id);
    const page = async (limit: number, offset?: number) =>
      (await p.ok("POST", "/evaluations/runs/compare", { run_ids: [after, lost], limit, offset })).comparison.scenarios;
    const first = await page(2);
    expect(first).toMatchObject({ matched: 3, changed_count: 3, next_offset: 2 });
    expect(first.changed).toHaveLength(2);
    const rest = await page(2, 2);
    expect(rest).toMatchObject({ changed_count: 3, next_offset: null });
    expect([...first.changed, ...rest.changed].map((c: any) => c.testcase_id).sort()).toEqual(
      (await page(10)).changed.map((c: any) => c.testcase_id).sort());
    expect(await page(0)).toMatchObject({ changed_count: 3, changed: [], next_offset: 0 });
  });

  it("runs evaluators on the testcases alone when there is no application", async () => {
    const ts = await testset("graded-rows", [{ outputs: "Paris", answer: "Paris" }, { outputs: "Rome", answer: "Madrid" }]);
    const judge = (await p.ok("POST", "/simple/evaluators/", {
      evaluator: { slug: "rows-exact", data: { uri: "agenta:builtin:auto_exact_match:v0", parameters: { correct_answer_key: "answer" } } },
    })).evaluator;
    const created = await p.ok("POST", "/simple/evaluations/", { evaluation: { data: { testset_steps: [ts.revision_id], evaluator_steps: [judge.revision_id] } } });
    const done = await finished(created.evaluation.id);
    expect(done.data.status).toBe("success");
    const metrics = (await p.ok("POST", "/evaluations/metrics/query", { metrics: { run_id: done.id, scenario_ids: false } })).metrics[0];
    const step = Object.keys(metrics.data)[0];
    expect(metrics.data[step]["attributes.ag.data.outputs.success"].freq).toEqual([
      { value: true, count: 1, density: 0.5 }, { value: false, count: 1, density: 0.5 },
    ]);
  });

  it("leaves a client-driven run (status running) to its client: nothing is dispatched", async () => {
    const { ts, app } = await fixture("client");
    const created = await p.ok("POST", "/simple/evaluations/", {
      evaluation: { data: { status: "running", testset_steps: [ts.revision_id], application_steps: [app.revision_id] } },
    });
    expect(created.evaluation.data.status).toBe("running");
    await sleep(200);
    expect(await progress(created.evaluation.id)).toMatchObject({ scenarios: 0, status: "running" });
    const closed = await p.ok("POST", `/evaluations/runs/${created.evaluation.id}/close?status=success`);
    expect(closed.run).toMatchObject({ status: "success", flags: { is_closed: true } });
  });

  it("stops an evaluation: it ends cancelled and stays so", async () => {
    const { ts, app } = await fixture("stop");
    const created = await p.ok("POST", "/simple/evaluations/", { evaluation: { data: { testset_steps: [ts.revision_id], application_steps: [app.revision_id] } } });
    const stopped = await p.ok("POST", `/simple/evaluations/${created.evaluation.id}/stop`);
    expect(stopped.evaluation.flags.is_active).toBe(false);
    const done = await finished(created.evaluation.id);
    expect(["cancelled", "success"]).toContain(done.data.status); // it may have finished before the stop arrived
  });

  it("refuses what it cannot run, before storing anything", async () => {
    const { ts, judge } = await fixture("bad");
    const noSteps = await p.call("POST", "/simple/evaluations/", { evaluation: { data: { testset_steps: [ts.revision_id] } } });
    expect(noSteps.statusCode).toBe(400);
    expect(noSteps.json().detail).toContain("application_steps or evaluator_steps");
    const unknown = await p.call("POST", "/simple/evaluations/", {
      evaluation: { data: { testset_steps: ["01900000-0000-7000-8000-000000000000"], evaluator_steps: [judge.revision_id] } },
    });
    expect(unknown.statusCode).toBe(404);
    const stranger = await server.project();
    const foreign = await stranger.call("POST", "/simple/evaluations/", {
      evaluation: { data: { testset_steps: [ts.revision_id], evaluator_steps: [judge.revision_id] } },
    });
    expect(foreign.statusCode).toBe(404);
  });
});

describe("slices of a run (probe, process, prune, scenarios/remove, repeats/set)", () => {
  async function echoRun(prefix: string) {
    const ts = await testset(`${prefix}-rows`, [{ q: "a" }, { q: "b" }, { q: "c" }]);
    const echo = (await p.ok("POST", "/simple/applications/", {
      application: { slug: `${prefix}-echo`, data: { uri: "agenta:custom:mock:v0", parameters: { key: "echo" } } },
    })).application;
    const created = await p.ok("POST", "/simple/evaluations/", {
      evaluation: { data: { testset_steps: [ts.revision_id], application_steps: [echo.revision_id] } },
    });
    const run = await finished(created.evaluation.id);
    const { scenarios } = await p.ok("POST", "/evaluations/scenarios/query", { scenario: { run_id: run.id } });
    const steps = (await p.ok("GET", `/evaluations/runs/${run.id}`)).run.data.steps;
    return { run, scenarios: scenarios.map((s: any) => s.id).sort() as string[], steps };
  }
  const probe = async (runId: string, slice: object) => (await p.ok("POST", `/simple/evaluations/${runId}/probe`, slice)).results;

  it("reads, deletes and invokes again the cells a slice names", async () => {
    const { run, scenarios, steps } = await echoRun("slice");
    const app = steps.find((s: any) => s.type === "invocation").key;
    expect(await probe(run.id, {})).toHaveLength(6); // an input and an application cell per scenario
    expect(await probe(run.id, { scenario_ids: [scenarios[0]], step_keys: [app], repeat_idxs: [0] })).toHaveLength(1);
    expect(await probe(run.id, { scenario_ids: [uuidv4()] })).toEqual([]);

    const pruned = await p.call("POST", `/simple/evaluations/${run.id}/prune`, { scenario_ids: [scenarios[0]], step_keys: [app] });
    expect(pruned.statusCode).toBe(204);
    expect(await probe(run.id, { step_keys: [app] })).toHaveLength(2);

    // Processing the slice invokes the missing cell again, and the run ends again.
    const processed = await p.call("POST", `/simple/evaluations/${run.id}/process`, { scenario_ids: [scenarios[0]], step_keys: [app] });
    expect(processed.statusCode).toBe(202);
    expect((await finished(run.id)).data.status).toBe("success");
    expect(await probe(run.id, { step_keys: [app] })).toHaveLength(3);
    // Nothing missing: nothing to do; with overwrite every cell of the slice runs again.
    expect((await p.call("POST", `/simple/evaluations/${run.id}/process`, {})).statusCode).toBe(202);
    const before = (await probe(run.id, { scenario_ids: [scenarios[1]], step_keys: [app] }))[0];
    expect((await p.call("POST", `/simple/evaluations/${run.id}/process`, { scenario_ids: [scenarios[1]], overwrite: true })).statusCode)
      .toBe(202);
    await finished(run.id);
    const after = (await probe(run.id, { scenario_ids: [scenarios[1]], step_keys: [app] }))[0];
    expect(after.trace_id).not.toBe(before.trace_id);
  });

  it("removes only the run's own scenarios, and sets its repeats", async () => {
    const a = await echoRun("remove-a");
    const b = await echoRun("remove-b");
    const stranger = await p.call("POST", `/simple/evaluations/${a.run.id}/scenarios/remove`, { scenario_ids: [a.scenarios[0], b.scenarios[0]] });
    expect(stranger.statusCode).toBe(400);
    expect(await probe(a.run.id, { scenario_ids: [a.scenarios[0]] })).toHaveLength(2);
    const removed = await p.call("POST", `/simple/evaluations/${a.run.id}/scenarios/remove`, { scenario_ids: [a.scenarios[0]] });
    expect(removed.statusCode).toBe(204);
    expect(await probe(a.run.id, { scenario_ids: [a.scenarios[0]] })).toEqual([]);
    expect((await p.ok("POST", "/evaluations/scenarios/query", { scenario: { run_id: a.run.id } })).count).toBe(2);

    const set = await p.ok("POST", `/simple/evaluations/${a.run.id}/repeats/set`, { repeats: 3 });
    expect(set.run.data.repeats).toBe(3);
    await p.ok("POST", `/evaluations/runs/${a.run.id}/close`);
    expect((await p.call("POST", `/simple/evaluations/${a.run.id}/prune`, {})).statusCode).toBe(409);
  });
});
