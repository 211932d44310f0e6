import cluster from "node:cluster";
import { availableParallelism } from "node:os";
import type { Config } from "./config.ts";
import { prepareDatabase } from "./serve.ts";

/** `TESSERA_WORKERS`: a number, or `auto` (0 in config) for one worker per core. */
export const workerCount = (config: Config) => (config.workers === 0 ? availableParallelism() : config.workers);

/**
 * The primary process of a multi-core server: it migrates once, then runs N workers that share one
 * port (node:cluster) and hold no state of their own — caches agree through PostgreSQL NOTIFY.
 * A worker that dies is replaced (a lost database connection ends none: they reconnect); SIGTERM drains
 * every worker before the primary exits, non-zero if a worker's drain ran out of time.
 */
export async function runPrimary(config: Config, workers: number): Promise<void> {
  await prepareDatabase(config);
  let stopping = false;
  let failed = false;
  const fork = () => cluster.fork({ TESSERA_WORKER: "1" });
  for (let i = 0; i < workers; i++) fork();
  cluster.on("exit", (worker, code, signal) => {
    if (stopping) {
      failed ||= code !== 0;
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(failed ? 1 : 0);
      return;
    }
    process.stderr.write(`worker ${worker.process.pid} exited (${signal ?? code}); starting another\n`);
    fork();
  });
  const stop = () => {
    if (stopping) return;
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill("SIGTERM");
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
