import type { Queryable } from "./database.ts";

/**
 * Autovacuum for the embedded database, which has none: PGlite runs PostgreSQL as a single backend with no
 * background workers, so the rows that updates and deletes leave behind (job claims, scenario statuses,
 * progress counters) would pile up for good and the planner would never get statistics. Every `intervalMs`
 * the tables past autovacuum's default thresholds (dead rows over 50 + 20% of the live ones; rows changed
 * since the last ANALYZE over 50 + 10%) are vacuumed or analyzed, one statement each, queued with the
 * server's own queries like any other. A PostgreSQL server whose autovacuum is off gets the same passes; tables
 * another process is already vacuuming or analyzing are skipped.
 */
export function startMaintenance(db: Queryable, intervalMs: number, onError: (error: unknown) => void) {
  let running: Promise<void> = Promise.resolve();
  const pass = async () => {
    const due = await db.query<{ name: string; vacuum: boolean }>(
      `SELECT format('%I.%I', schemaname, relname) AS name, n_dead_tup > 50 + 0.2 * n_live_tup AS vacuum
       FROM pg_stat_user_tables
       WHERE n_dead_tup > 50 + 0.2 * n_live_tup OR n_mod_since_analyze > 50 + 0.1 * n_live_tup`,
    );
    for (const { name, vacuum } of due) {
      await db.query(vacuum ? `VACUUM (ANALYZE, SKIP_LOCKED) ${name}` : `ANALYZE (SKIP_LOCKED) ${name}`);
    }
  };
  const timer = setInterval(() => {
    running = running.then(pass).catch(onError);
  }, intervalMs);
  timer.unref();
  return {
    /** Stops the timer and waits for a pass under way. */
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
