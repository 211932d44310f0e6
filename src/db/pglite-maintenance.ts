import type { Queryable } from "./database.ts";

/** Longest a maintenance statement waits for a moment when no request's statement is queued before it runs anyway. */
const GAP_WAIT_MS = 5_000;

/**
 * Autovacuum for the embedded database, which has none: PGlite runs PostgreSQL as a single backend with no
 * background workers, so the rows that updates and deletes leave behind (job claims, scenario statuses,
 * progress counters) would pile up for good and the planner would never get statistics. Every `intervalMs`
 * the tables past autovacuum's default thresholds (dead rows over 50 + 20% of the live ones; rows changed
 * since the last ANALYZE over 50 + 10%) are vacuumed or analyzed, one statement each. A statement holds every
 * request for as long as it runs, so each waits (up to `GAP_WAIT_MS`) until `busy()` says no request's
 * statement is queued, and the embedded database samples fewer rows for its statistics (`STATISTICS_TARGET`).
 * A PostgreSQL server whose autovacuum is off gets the same passes (never busy: other connections go on); tables
 * another process is already vacuuming or analyzing are skipped.
 */
export function startMaintenance(
  db: Queryable, intervalMs: number, busy: () => boolean, onError: (error: unknown) => void,
) {
  let running: Promise<void> = Promise.resolve();
  const gap = async () => {
    const until = performance.now() + GAP_WAIT_MS;
    while (busy() && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 5));
  };
  const pass = async () => {
    await gap();
    const due = await db.query<{ name: string; vacuum: boolean }>(
      `SELECT format('%I.%I', schemaname, relname) AS name, n_dead_tup > 50 + 0.2 * n_live_tup AS vacuum
       FROM pg_stat_user_tables
       WHERE n_dead_tup > 50 + 0.2 * n_live_tup OR n_mod_since_analyze > 50 + 0.1 * n_live_tup`,
    );
    for (const { name, vacuum } of due) {
      await gap();
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

/**
 * The embedded database's `default_statistics_target`. ANALYZE samples 300 rows per unit of it: PostgreSQL's 100
 * reads 30,000 rows, 0.5-1.1 s of a 300,000-row testcases table during which no other project's statement runs;
 * 20 reads 6,000 (75-170 ms, measured on the same table). The planner's estimates for the key, project and time
 * columns the queries filter on stay close; the jsonb columns' statistics serve no query.
 */
export const STATISTICS_TARGET = 20;
