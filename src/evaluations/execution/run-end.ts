import type { Scope } from "../../accounts/scope.ts";
import type { Queryable } from "../../db/database.ts";
import { hasOpenJobs } from "../../jobs/queue.ts";
import { refreshMetrics } from "../metrics/metrics.ts";

/** The jobs of a server-run evaluation: one plans the run (scenarios and batches), then one job per batch. */
export const PLAN_QUEUE = "evaluation.plan";
export const BATCH_QUEUE = "evaluation.batch";

/**
 * When no plan or batch of the run is left: its metrics are computed (and its chunks whose scenarios all succeeded
 * offered to later runs), and it ends `success`, `errors` or `failure` (the scenarios of chunks it links all
 * succeeded). A live run goes on (live-runs.ts): only its metrics are refreshed.
 */
export async function finishIfDone(db: Queryable, scope: Scope, runId: string): Promise<void> {
  if (await hasOpenJobs(db, [PLAN_QUEUE, BATCH_QUEUE], { run_id: runId })) return;
  await refreshMetrics(db, scope, runId);
  await db.query(
    `UPDATE evaluation_runs r SET flags = r.flags || '{"is_active": false}', updated_at = now(),
       status = CASE WHEN s.failed = 0 THEN 'success' WHEN s.failed = s.total + l.total THEN 'failure' ELSE 'errors' END
     FROM (SELECT count(*) AS total, count(*) FILTER (WHERE status = 'failure') AS failed
           FROM evaluation_scenarios WHERE run_id = $1) s,
       (SELECT coalesce(sum(count), 0) AS total FROM evaluation_run_chunks
        WHERE run_id = $1 AND source_run_id <> run_id) l
     WHERE r.id = $1 AND r.status IN ('queued', 'running') AND NOT coalesce((r.flags->>'is_live')::boolean, false)`,
    [runId],
  );
}
