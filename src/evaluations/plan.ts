import type { Database, Queryable } from "../db/database.ts";
import { complete, enqueue, type Job, savePayload } from "../jobs/queue.ts";
import type { JobHandler } from "../jobs/worker.ts";
import { testsets } from "../kinds/testsets.ts";
import { idPages, type StoredIds } from "../testsets/chunk-lists.ts";
import { findRevision } from "../versioning/revisions.ts";
import { insertRows } from "./entity-table.ts";
import { addPlannedScenarios } from "./progress.ts";
import type { RunStep } from "./run-steps.ts";
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
  data: { steps: RunStep[] };
  created_by_id: string | null;
  active: boolean;
}

/**
 * Plans a server-run evaluation: one scenario per testcase of each pinned testset revision (its input
 * result names the testcase), and one batch job per `batchSize` scenarios. The testcases are planned
 * `PLAN_CHUNK` at a time, each chunk in one transaction with the plan's position (its job's payload), so
 * a plan cut short goes on where it stopped and plans every testcase exactly once; batches of the first
 * chunks run while the rest is planned, and no transaction holds the embedded database for long.
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
              for (let at = 0; at < page.length; at += PLAN_ROWS) await planRows(tx, scope, runId, step.key, page.slice(at, at + PLAN_ROWS), batchSize);
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
    },
  };
}

const RUN = `SELECT data, created_by_id, coalesce((flags->>'is_active')::boolean, false) AS active
  FROM evaluation_runs WHERE id = $1 AND project_id = $2`;

/** Scenarios for these testcases, their input results, their batch jobs, and the run's counters. */
async function planRows(tx: Queryable, scope: { projectId: string; userId: string | null }, runId: string, stepKey: string, ids: string[], batchSize: number) {
  const made = await insertRows(tx, scope, scenarios, ids.map(() => ({ run_id: runId })), { returning: false });
  await insertRows(tx, scope, results, made.map((s, i) => ({
    run_id: runId, scenario_id: s.id, step_key: stepKey, testcase_id: ids[i], status: "success",
  })), { returning: false });
  const batches = [];
  for (let i = 0; i < made.length; i += batchSize) {
    batches.push({ queue: BATCH_QUEUE, projectId: scope.projectId, payload: { run_id: runId, scenario_ids: made.slice(i, i + batchSize).map((s) => s.id) } });
  }
  await enqueue(tx, batches);
  await addPlannedScenarios(tx, runId, made.length);
}
