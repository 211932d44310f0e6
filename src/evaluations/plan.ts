import type { Database } from "../db/database.ts";
import { complete, enqueue, type Job } from "../jobs/queue.ts";
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

export interface PlanPayload {
  run_id: string;
}

/**
 * Plans a server-run evaluation in one transaction: one scenario per testcase of each pinned testset
 * revision (its input result names the testcase), and one batch job per `batchSize` scenarios. A plan
 * that dies half way leaves nothing behind and is planned again; reading the id list page by page keeps
 * memory flat at any testset size.
 */
export function planHandler(db: Database, batchSize: number): JobHandler<PlanPayload> {
  return {
    queue: PLAN_QUEUE,
    async run(job: Job<PlanPayload>) {
      await db.transaction(async (tx) => {
        const [run] = await tx.query<{ data: { steps: RunStep[] }; created_by_id: string | null; active: boolean }>(
          `SELECT data, created_by_id, coalesce((flags->>'is_active')::boolean, false) AS active
           FROM evaluation_runs WHERE id = $1 AND project_id = $2 FOR UPDATE`,
          [job.payload.run_id, job.projectId],
        );
        if (run?.active) {
          const scope = { projectId: job.projectId!, userId: run.created_by_id };
          for (const step of run.data.steps.filter((s) => s.type === "input")) {
            const revision = await findRevision(tx, scope, testsets, { id: step.references.testset_revision.id });
            for await (const page of idPages(tx, scope.projectId, revision.data as StoredIds | null)) {
              for (let at = 0; at < page.length; at += PLAN_ROWS) {
                const ids = page.slice(at, at + PLAN_ROWS);
                const made = await insertRows(tx, scope, scenarios, ids.map(() => ({ run_id: job.payload.run_id })), { returning: false });
                await insertRows(tx, scope, results, made.map((s, i) => ({
                  run_id: job.payload.run_id, scenario_id: s.id, step_key: step.key, testcase_id: ids[i], status: "success",
                })), { returning: false });
                const batches = [];
                for (let i = 0; i < made.length; i += batchSize) {
                  const scenarioIds = made.slice(i, i + batchSize).map((s) => s.id);
                  batches.push({ queue: BATCH_QUEUE, projectId: scope.projectId, payload: { run_id: job.payload.run_id, scenario_ids: scenarioIds } });
                }
                await enqueue(tx, batches);
                await addPlannedScenarios(tx, job.payload.run_id, made.length);
              }
            }
          }
          await tx.query("UPDATE evaluation_runs SET status = 'running', updated_at = now() WHERE id = $1", [job.payload.run_id]);
        }
        await complete(tx, job);
      });
    },
  };
}
