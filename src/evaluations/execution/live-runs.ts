import type { Scope } from "../../accounts/scope.ts";
import type { Database, Queryable } from "../../db/database.ts";
import { complete, enqueue, type Job } from "../../jobs/queue.ts";
import type { JobHandler } from "../../jobs/worker.ts";
import { planTraces, type PlanPayload } from "./plan.ts";
import type { RunStep } from "./run-steps.ts";

/*
 * A live evaluation (`flags.is_live`) never ends by itself: every interval it takes the traces its queries pick that
 * started in the interval just gone, one scenario each, stamped with the window (`timestamp`, `interval`), and
 * grades them with its evaluators, until it is stopped.
 */

/** One job per window of a live run, keyed by the run and the window's end so a window is planned once. */
export const LIVE_QUEUE = "evaluation.live";

/** Queues the live run's window that starts at `oldest`, to be planned once it has passed. */
export async function scheduleLiveWindow(
  db: Queryable, projectId: string, runId: string, oldest: Date, intervalMs: number,
): Promise<void> {
  const newest = new Date(oldest.getTime() + intervalMs);
  const interval = Math.round(intervalMs / 1000);
  const window = { oldest: oldest.toISOString(), newest: newest.toISOString(), interval };
  await enqueue(db, [{
    queue: LIVE_QUEUE, projectId, key: `${runId}@${window.newest}`, payload: { run_id: runId, window },
    delayMs: Math.max(0, newest.getTime() - Date.now()),
  }]);
}

interface LiveRun {
  data: { steps: RunStep[] };
  created_by_id: string | null;
  live: boolean;
}

/** Plans each window of live runs that are still active, and queues the next one. */
export function liveHandler(
  db: Database, options: { batchSize: number; maxTraces: number; intervalMs: number },
): JobHandler<PlanPayload> {
  return {
    queue: LIVE_QUEUE,
    async run(job: Job<PlanPayload>) {
      const runId = job.payload.run_id;
      const [run] = await db.query<LiveRun>(
        `SELECT data, created_by_id, coalesce((flags->>'is_live')::boolean, false)
           AND coalesce((flags->>'is_active')::boolean, false)
           AND NOT coalesce((flags->>'is_closed')::boolean, false) AS live
         FROM evaluation_runs WHERE id = $1 AND project_id = $2`,
        [runId, job.projectId],
      );
      if (!run?.live) {
        await complete(db, job);
        return;
      }
      const scope: Scope = { projectId: job.projectId!, userId: run.created_by_id };
      const planned = { ...job.payload.planned };
      for (const step of run.data.steps.filter((s) => s.references.query_revision)) {
        const { batchSize, maxTraces } = options;
        await planTraces(db, { job, planned, scope, runId, step, batchSize, maxTraces });
      }
      await db.transaction(async (tx) => {
        await complete(tx, job);
        await scheduleLiveWindow(tx, scope.projectId, runId, new Date(job.payload.window!.newest), options.intervalMs);
      });
    },
  };
}
