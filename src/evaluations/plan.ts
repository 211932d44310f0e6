import type { Scope } from "../accounts/scope.ts";
import type { Database, Queryable } from "../db/database.ts";
import { complete, enqueue, type Job, savePayload } from "../jobs/queue.ts";
import type { JobHandler } from "../jobs/worker.ts";
import { testsets } from "../kinds/testsets.ts";
import { idPages, type StoredIds } from "../testsets/chunk-lists.ts";
import { findRevision } from "../versioning/revisions.ts";
import { type Cell, earlierResults, reusedCell } from "./cells.ts";
import { copyRows } from "./entity-table.ts";
import { type BatchPayload, finishIfDone } from "./execute.ts";
import { addPlannedScenarios } from "./progress.ts";
import { cellHashes } from "./result-hash.ts";
import { computedSteps, type RunStep } from "./run-steps.ts";
import { BATCH_QUEUE, PLAN_QUEUE } from "./simple-evaluations.ts";
import { results, scenarios } from "./tables.ts";

/**
 * Scenarios written a statement (each with its input result): statements stay small whatever the testset's
 * size, since the embedded database keeps for good the memory its largest statement needed.
 */
const PLAN_ROWS = 1000;
/** Testcases planned a transaction: the embedded database serves nothing else while one is open. */
const PLAN_CHUNK = 5000;

export interface PlanPayload {
  run_id: string;
  /** Testcases planned so far, by input step key: where a plan taken over after a crash goes on. */
  planned?: Record<string, number>;
}

interface PlanRun {
  data: { steps: RunStep[]; repeats?: number };
  created_by_id: string | null;
  active: boolean;
  cached: boolean;
}

/**
 * Plans a server-run evaluation: one scenario per testcase of each pinned testset revision (its input
 * result names the testcase), and one batch job per `batchSize` scenarios. In a cached run
 * (`flags.is_cached`), a scenario whose every cell has an earlier result is stored done, with those
 * results, and needs no batch: a re-run after a small commit runs batches for the new testcases only.
 * The testcases are planned `PLAN_CHUNK` at a time, each chunk in one transaction with the plan's position
 * (its job's payload), so a plan cut short goes on where it stopped and plans every testcase exactly once;
 * batches of the first chunks run while the rest is planned, and no transaction holds the embedded database
 * for long.
 */
export function planHandler(db: Database, batchSize: number): JobHandler<PlanPayload> {
  return {
    queue: PLAN_QUEUE,
    async run(job: Job<PlanPayload>) {
      const runId = job.payload.run_id;
      const planned = { ...job.payload.planned };
      const [first] = await db.query<PlanRun>(RUN, [runId, job.projectId]);
      const scope = { projectId: job.projectId!, userId: first?.created_by_id ?? null };
      for (const step of first?.active ? first.data.steps.filter((s) => s.type === "input") : []) {
        const revision = await findRevision(db, scope, testsets, { id: step.references.testset_revision.id });
        for (let more = true; more;) {
          more = await db.transaction(async (tx) => {
            const [run] = await tx.query<PlanRun>(`${RUN} FOR UPDATE`, [runId, job.projectId]);
            if (!run?.active) return false; // stopped while planning
            const from = planned[step.key] ?? 0;
            let count = 0;
            for await (const page of idPages(tx, scope.projectId, revision.data as StoredIds | null, from, PLAN_CHUNK)) {
              for (let at = 0; at < page.length; at += PLAN_ROWS) {
                await planRows(tx, scope, run, runId, step.key, page.slice(at, at + PLAN_ROWS), batchSize);
              }
              count += page.length;
            }
            planned[step.key] = from + count;
            await tx.query("UPDATE evaluation_runs SET status = 'running', updated_at = now() WHERE id = $1 AND status = 'queued'", [runId]);
            if (!(await savePayload(tx, job, { ...job.payload, planned }))) throw new Error("the plan's lease was lost");
            return count === PLAN_CHUNK;
          });
        }
      }
      await db.transaction(async (tx) => {
        await tx.query(
          `UPDATE evaluation_runs SET status = 'running', updated_at = now()
           WHERE id = $1 AND status = 'queued' AND coalesce((flags->>'is_active')::boolean, false)`,
          [runId],
        );
        await complete(tx, job);
      });
      // Batches that ended while the plan was open left the run for it to finish (all of them, when every
      // scenario was reused).
      await finishIfDone(db, scope, runId);
    },
  };
}

const RUN = `SELECT data, created_by_id, coalesce((flags->>'is_active')::boolean, false) AS active,
    coalesce((flags->>'is_cached')::boolean, false) AS cached
  FROM evaluation_runs WHERE id = $1 AND project_id = $2`;

/**
 * Scenarios for these testcases, their input results, their batch jobs, and the run's counters. A cached
 * run's scenario whose cells all have earlier results is stored as done, with them, instead of batched.
 */
async function planRows(
  tx: Queryable, scope: Scope, run: PlanRun, runId: string, stepKey: string, ids: string[], batchSize: number,
) {
  const found = run.cached ? await earlierCells(tx, scope, run, ids) : null;
  const done = (i: number) => found !== null && found[i]!.length > 0 && found[i]!.every((c) => c !== null);
  const made = await copyRows(tx, scope, scenarios, ids.map((_, i) => ({
    run_id: runId, status: done(i) ? "success" : "pending",
  })));
  await copyRows(tx, scope, results, made.flatMap((s, i) => [
    { run_id: runId, scenario_id: s.id, step_key: stepKey, testcase_id: ids[i], status: "success" },
    ...(done(i) ? found![i]! : []).map((c) => ({ ...c!, run_id: runId, scenario_id: s.id })),
  ]));
  const left = made.flatMap((s, i) => (done(i) ? [] : [i]));
  const batches = [];
  for (let at = 0; at < left.length; at += batchSize) {
    const slice = left.slice(at, at + batchSize);
    // A batch none of whose cells had an earlier result when planned does not look them up again.
    const fresh = found !== null && slice.every((i) => found[i]!.every((c) => c === null));
    const payload: BatchPayload = {
      run_id: runId, scenario_ids: slice.map((i) => made[i]!.id as string), testcase_ids: slice.map((i) => ids[i]!),
      ...(fresh && { fresh }),
    };
    batches.push({ queue: BATCH_QUEUE, projectId: scope.projectId, payload });
  }
  await enqueue(tx, batches);
  const reused = ids.reduce((n, _, i) => n + (done(i) ? found![i]!.length : 0), 0);
  await addPlannedScenarios(tx, runId, { scenarios: made.length, succeeded: made.length - left.length, reused });
}

/**
 * For each testcase, its cells (each computed step at each repeat), each the earlier result it can take or null;
 * none when the run computes nothing (its scenarios are left to batches).
 */
async function earlierCells(tx: Queryable, scope: Scope, run: PlanRun, ids: string[]): Promise<(Cell | null)[][]> {
  const { app, graders } = computedSteps(run.data.steps);
  if (!app && graders.length === 0) return ids.map(() => []);
  const repeats = Array.from({ length: Math.max(1, run.data.repeats ?? 1) }, (_, repeat) => repeat);
  const hashes = ids.map((id) => repeats.map((repeat) => cellHashes(app, graders, id, repeat)));
  const all = hashes.flatMap((byRepeat) => byRepeat.flatMap((h) => [...h.values()]));
  const earlier = await earlierResults(tx, scope.projectId, all, { outputs: false });
  return hashes.map((byRepeat) => byRepeat.flatMap((h, repeat) => [...h].map(([key, hash]) => {
    const found = earlier.get(hash);
    return found ? reusedCell(found, "", key, repeat) : null;
  })));
}
