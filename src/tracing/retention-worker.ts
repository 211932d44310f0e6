import type { Config } from "../config.ts";
import type { Database } from "../db/database.ts";
import { enqueue } from "../jobs/queue.ts";
import { JobWorker } from "../jobs/worker.ts";
import { sweepExpiredSpans } from "./retention.ts";

/** The queue of retention sweeps. */
export const RETENTION_QUEUE = "span-retention";

/**
 * Span retention in the background: every `sweepMs` each process adds the sweep of that period to the job queue,
 * keyed by the period so that a cluster runs it once, and a worker of its own (one job at a time) runs it. A sweep
 * left unfinished by a process that stopped is taken over by another when its lease runs out.
 */
export function retentionWorker(db: Database, config: Config, onError: (error: unknown) => void) {
  const { days, sweepMs, batch } = config.spanRetention;
  const worker = new JobWorker(db, [{
    queue: RETENTION_QUEUE,
    run: async (_job, signal) => {
      await sweepExpiredSpans(db, days, batch, signal);
    },
  }], { concurrency: 1, leaseMs: config.evaluations.leaseMs, pollMs: Math.min(sweepMs, 60_000), onError });
  const due = () => {
    const period = Math.floor(Date.now() / sweepMs);
    enqueue(db, [{ queue: RETENTION_QUEUE, key: `sweep:${sweepMs}:${period}`, payload: { period }, maxAttempts: 3 }])
      .catch(onError);
  };
  let timer: NodeJS.Timeout | null = null;
  return {
    async start() {
      await worker.start();
      due();
      timer = setInterval(due, sweepMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      await worker.stop();
    },
  };
}
