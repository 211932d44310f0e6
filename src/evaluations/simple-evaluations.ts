import type { Scope } from "../accounts/scope.ts";
import type { Queryable } from "../db/database.ts";
import { cancelQueued, enqueue } from "../jobs/queue.ts";
import { fetchRows, insertRows, type Row } from "./entities/entity-table.ts";
import { recountProgress } from "./metrics/progress.ts";
import { BATCH_QUEUE, finishIfDone, PLAN_QUEUE } from "./execution/run-end.ts";
import { reconcileRun, shapeFlags } from "./entities/run-graph.ts";
import { assertOpenRuns } from "./entities/runs.ts";
import { buildSteps, type RunStep, simpleSteps, type SimpleSteps } from "./execution/run-steps.ts";
import { runs } from "./entities/tables.ts";
import { serverRunWithoutSteps } from "./errors.ts";
import { LIVE_QUEUE, scheduleLiveWindow } from "./execution/live-runs.ts";
import { isInvocationQuery, queryRevisionData } from "./execution/trace-sources.ts";

export interface SimpleEvaluationInput {
  name?: string | null;
  description?: string | null;
  flags?: Record<string, unknown> | null;
  tags?: Record<string, unknown> | null;
  meta?: Record<string, unknown> | null;
  data?: (SimpleSteps & { status?: string | null; repeats?: number | null; concurrency?: Record<string, unknown> | null }) | null;
}

/** What creating a simple evaluation depends on in the server's configuration. */
export interface EvaluationTiming {
  /** How often a live evaluation takes the traces of the interval just gone. */
  liveIntervalMs: number;
}

/**
 * Creates a run from revision ids and starts it. With `data.status: "running"` the client drives the run
 * (the reference SDK's `aevaluate`): nothing is dispatched. Otherwise the server executes it: a testset or query
 * step and an application or evaluator step are needed (400 before anything is stored). A live run (`flags.is_live`)
 * grades the traces its queries pick, window after window, until stopped; each query must pick invocation traces,
 * else no run is made (null, as the reference answers `count: 0`).
 */
export async function createSimpleEvaluation(
  tx: Queryable, scope: Scope, input: SimpleEvaluationInput, timing: EvaluationTiming,
): Promise<Row | null> {
  const data = input.data ?? {};
  const steps = await buildSteps(tx, scope, data);
  const clientDriven = data.status === "running";
  const live = input.flags?.is_live === true;
  const has = (type: RunStep["type"]) => steps.some((s) => s.type === type);
  if (!clientDriven && !(has("input") && (has("invocation") || has("annotation")))) {
    throw serverRunWithoutSteps();
  }
  const queried = steps.filter((s) => s.references.query_revision);
  if (live && !(await liveQueries(tx, scope, queried))) return null;
  const flags = {
    is_live: live, is_active: true, is_closed: false, is_queue: false,
    is_cached: input.flags?.is_cached === true, is_split: input.flags?.is_split === true, ...shapeFlags(steps),
  };
  const repeats = Math.max(1, data.repeats ?? 1);
  const [run] = await insertRows(tx, scope, runs, [{
    name: input.name, description: input.description, tags: input.tags, meta: input.meta, flags,
    status: clientDriven || live ? "running" : "queued",
    data: { steps, repeats, concurrency: data.concurrency ?? null, mappings: [] },
  }]);
  const runId = run.id as string;
  if (live) await scheduleLiveWindow(tx, scope.projectId, runId, new Date(), timing.liveIntervalMs);
  else if (!clientDriven) {
    // A query step takes the traces that started before the run: a plan taken over after a crash sees the same ones.
    const window = queried.length ? { newest: new Date().toISOString() } : undefined;
    const payload = { run_id: runId, window };
    await enqueue(tx, [{ queue: PLAN_QUEUE, projectId: scope.projectId, key: runId, payload }]);
  }
  return reconcileRun(tx, scope, run, new Set());
}

/** Whether a live run can be made of these query steps: at least one, each picking invocation traces. */
async function liveQueries(tx: Queryable, scope: Scope, steps: RunStep[]): Promise<boolean> {
  if (steps.length === 0) return false;
  for (const step of steps) {
    if (!isInvocationQuery(await queryRevisionData(tx, scope, step.references.query_revision.id))) return false;
  }
  return true;
}

/** Stops a run: queued batches are cancelled, the run is no longer active; what ran keeps its results. */
export async function stopEvaluation(tx: Queryable, scope: Scope, runId: string): Promise<Row | null> {
  const rows = await tx.query<{ id: string }>(
    `UPDATE evaluation_runs SET flags = flags || '{"is_active": false}',
       status = CASE WHEN status IN ('pending', 'queued', 'running') THEN 'cancelled' ELSE status END,
       updated_at = now(), updated_by_id = $3
     WHERE project_id = $1 AND id = $2 RETURNING id`,
    [scope.projectId, runId, scope.userId],
  );
  if (!rows.length) return null;
  await cancelQueued(tx, PLAN_QUEUE, { run_id: runId });
  await cancelQueued(tx, LIVE_QUEUE, { run_id: runId });
  await cancelQueued(tx, BATCH_QUEUE, { run_id: runId });
  return (await fetchRows(tx, scope, runs, [runId]))[0] ?? null;
}

/**
 * Starts a stopped run again: a client-driven run is marked active; a server-run one plans its scenarios
 * if it has none yet, else queues again the scenarios that have not succeeded (with none left it ends again at once).
 * A closed run is a 409.
 */
export async function startEvaluation(
  tx: Queryable, scope: Scope, runId: string, batchSize: number, timing: EvaluationTiming,
): Promise<Row | null> {
  const [run] = await fetchRows(tx, scope, runs, [runId]);
  if (!run) return null;
  await assertOpenRuns(tx, scope, [runId]);
  const flags = run.flags as { is_active?: boolean; is_live?: boolean };
  if (flags.is_active) return run;
  if (flags.is_live) {
    // A live run started again takes the traces from now on.
    await tx.query(
      `UPDATE evaluation_runs SET flags = flags || '{"is_active": true}', status = 'running', updated_at = now()
       WHERE project_id = $1 AND id = $2`,
      [scope.projectId, runId],
    );
    await scheduleLiveWindow(tx, scope.projectId, runId, new Date(), timing.liveIntervalMs);
    return (await fetchRows(tx, scope, runs, [runId]))[0];
  }
  const clientDriven = !(await isServerRun(tx, runId));
  await tx.query(
    `UPDATE evaluation_runs SET flags = flags || '{"is_active": true}', status = $3, updated_at = now()
     WHERE project_id = $1 AND id = $2`,
    [scope.projectId, runId, clientDriven ? "running" : "queued"],
  );
  if (!clientDriven) {
    await recountProgress(tx, scope, runId);
    const left = await tx.query<{ id: string }>(
      "SELECT id FROM evaluation_scenarios WHERE run_id = $1 AND status <> 'success' ORDER BY id",
      [runId],
    );
    const planned = (await tx.query(
      `SELECT 1 FROM evaluation_scenarios WHERE run_id = $1
       UNION ALL SELECT 1 FROM evaluation_run_chunks WHERE run_id = $1 LIMIT 1`,
      [runId],
    )).length > 0;
    if (!planned) await enqueue(tx, [{ queue: PLAN_QUEUE, projectId: scope.projectId, payload: { run_id: runId } }]);
    await dispatchScenarios(tx, scope, runId, left.map((r) => r.id), batchSize);
    // A run whose scenarios all succeeded has nothing to invoke again: it ends at once, as a batch would end it.
    if (planned && !left.length) await finishIfDone(tx, scope, runId);
  }
  return (await fetchRows(tx, scope, runs, [runId]))[0];
}

/** Whether the server executes the run: it was given a plan job when created (else its client drives it). */
export async function isServerRun(tx: Queryable, runId: string): Promise<boolean> {
  return (await tx.query("SELECT 1 FROM jobs WHERE queue = $1 AND key = $2", [PLAN_QUEUE, runId])).length > 0;
}

/**
 * Queues scenarios of a run to be invoked again, in batches of `batchSize` (`fresh`: without taking earlier results
 * of a cached run).
 */
export async function dispatchScenarios(
  tx: Queryable, scope: Scope, runId: string, scenarioIds: string[], batchSize: number, fresh = false,
): Promise<void> {
  const batches = [];
  for (let i = 0; i < scenarioIds.length; i += batchSize) {
    const payload = { run_id: runId, scenario_ids: scenarioIds.slice(i, i + batchSize), ...(fresh && { fresh }) };
    batches.push({ queue: BATCH_QUEUE, projectId: scope.projectId, payload });
  }
  await enqueue(tx, batches);
}

/** A run in the reference's `SimpleEvaluation` shape: its steps read back as revision targets. */
export function simpleEvaluationRecord(run: Row): Row {
  const data = (run.data ?? {}) as { steps?: RunStep[]; repeats?: number; concurrency?: unknown };
  return {
    id: run.id, version: run.version, name: run.name, description: run.description, flags: run.flags, tags: run.tags, meta: run.meta,
    created_at: run.created_at, updated_at: run.updated_at, deleted_at: run.deleted_at,
    created_by_id: run.created_by_id, updated_by_id: run.updated_by_id, deleted_by_id: run.deleted_by_id,
    data: {
      status: run.status, ...simpleSteps(data.steps), repeats: data.repeats ?? 1, concurrency: data.concurrency ?? null,
    },
  };
}
