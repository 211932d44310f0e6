/*
 * Span retention: each project keeps its spans for its own number of days (`projects.span_retention_days`), or
 * the server's (`TESSERA_SPAN_RETENTION_DAYS`) when it sets none; 0 keeps them for good. A trace goes whole once
 * one of its spans started before the cutoff. Deletes run in batches of a few spans each, every batch a short
 * statement of its own, so the embedded database (one backend) serves requests between any two of them.
 */

import type { Queryable } from "../db/database.ts";

/** What one sweep deleted. */
export interface SweepResult {
  projects: number;
  spans: number;
}

/** The projects whose retention is finite. */
async function projectsToSweep(db: Queryable, defaultDays: number): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    "SELECT id FROM projects WHERE coalesce(span_retention_days, $1::int) > 0 ORDER BY id",
    [defaultDays],
  );
  return rows.map((row) => row.id);
}

/**
 * Deletes the traces of `projectId` that have a span among the `batch` oldest ones started before the project's
 * retention (read by the same statement, so a setting changed during a sweep holds at once; `defaultDays` when
 * it has none); the number of spans deleted (0 once none is left, or when the project keeps its spans).
 */
export async function deleteExpiredBatch(db: Queryable, projectId: string, defaultDays: number, batch: number) {
  const [row] = await db.query<{ n: number }>(
    `WITH cutoff AS (
       SELECT CASE WHEN d > 0 THEN now() - make_interval(days => d) ELSE '-infinity'::timestamptz END AS at
       FROM (SELECT coalesce(span_retention_days, $2::int) AS d FROM projects WHERE id = $1) p),
     expired AS (
       SELECT DISTINCT trace_id FROM (
         SELECT trace_id FROM spans
         WHERE project_id = $1 AND start_time < (SELECT at FROM cutoff)
         ORDER BY start_time LIMIT $3::int) oldest),
     deleted AS (
       DELETE FROM spans s USING expired e WHERE s.project_id = $1 AND s.trace_id = e.trace_id RETURNING 1)
     SELECT count(*)::int AS n FROM deleted`,
    [projectId, defaultDays, batch],
  );
  return row?.n ?? 0;
}

/**
 * Deletes every project's expired spans, batch after batch, yielding between batches; stops early (answering
 * what it did) once `signal` aborts, the next sweep taking up the rest.
 */
export async function sweepExpiredSpans(
  db: Queryable, defaultDays: number, batch: number, signal?: AbortSignal,
): Promise<SweepResult> {
  const result: SweepResult = { projects: 0, spans: 0 };
  for (const projectId of await projectsToSweep(db, defaultDays)) {
    let deleted = 0;
    for (;;) {
      if (signal?.aborted) return result;
      const n = await deleteExpiredBatch(db, projectId, defaultDays, batch);
      if (n === 0) break;
      deleted += n;
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (deleted > 0) result.projects++;
    result.spans += deleted;
  }
  return result;
}
