import type { AppContext } from "../../context.ts";
import { JobWorker } from "../../jobs/worker.ts";
import { batchHandler } from "./execute.ts";
import { liveHandler } from "./live-runs.ts";
import { planHandler } from "./plan.ts";

/** This process's share of evaluation work (plans and batches), or null when it is configured to run none. */
export function evaluationWorker(ctx: AppContext, onError: (error: unknown) => void): JobWorker | null {
  const { batches, batchSize, concurrency, leaseMs, projectBatches } = ctx.config.evaluations;
  const { maxTraces, liveIntervalMs } = ctx.config.evaluations;
  if (batches === 0) return null;
  return new JobWorker(ctx.db, [
    planHandler(ctx.db, batchSize, maxTraces),
    liveHandler(ctx.db, { batchSize, maxTraces, intervalMs: liveIntervalMs }),
    batchHandler(ctx, { invoking: batches, concurrency, retries: 4, retryBaseMs: 1000 }),
    // Twice the batches that invoke at once: while one batch reads its testcases or stores its results, the next
    // invokes (a plan takes one of these places too). Projects take turns, each within its share.
  ], { concurrency: 2 * batches, projectLimit: projectBatches, leaseMs, pollMs: 2_000, onError });
}
