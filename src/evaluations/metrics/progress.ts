import type { Scope } from "../../accounts/scope.ts";
import type { Queryable } from "../../db/database.ts";

/*
 * A run's progress: scenarios by status, and its cells (results of invocation and annotation steps)
 * invoked, reused or failed. A server-run evaluation keeps it as counters (`evaluation_progress`),
 * which its plan and batches update in their own transactions; any other run, or one whose rows were
 * changed through the entity routes, is counted from its rows.
 */

interface Counts {
  scenarios: number;
  succeeded: number;
  failed: number;
  invoked: number;
  reused: number;
  failed_cells: number;
}

/** A cell as the counters see it: its slot and what it counts as. */
export interface CountedCell {
  scenario_id: string;
  step_key: string;
  repeat_idx: number;
  status: string;
  hash_id: string | null;
  flags: { is_reused?: boolean } | null;
}

const COLUMNS = ["scenarios", "succeeded", "failed", "invoked", "reused", "failed_cells"] as const;

/**
 * Adds planned scenarios to a server-run evaluation's counters (created with its first plan): those the plan
 * stored done (`succeeded`, their cells `reused`) as well as those left to batches.
 */
export async function addPlannedScenarios(
  db: Queryable, runId: string, planned: { scenarios: number; succeeded: number; reused: number },
): Promise<void> {
  await db.query(
    `INSERT INTO evaluation_progress AS p (run_id, scenarios, succeeded, reused) VALUES ($1, $2, $3, $4)
     ON CONFLICT (run_id) DO UPDATE SET scenarios = p.scenarios + excluded.scenarios,
       succeeded = p.succeeded + excluded.succeeded, reused = p.reused + excluded.reused`,
    [runId, planned.scenarios, planned.succeeded, planned.reused],
  );
}

/**
 * Moves the counters by what a batch changes: call it in the batch's transaction before its writes, with
 * the cells it is about to store and its scenarios' new statuses. The scenarios are locked, so two writers of
 * the same scenarios (a batch whose lease ran out and the one that took it over) count each change once, and
 * none is deleted before the batch's results are stored; returns those that still exist.
 */
export async function countBatch(
  db: Queryable, runId: string, cells: CountedCell[], statuses: Map<string, string>,
): Promise<Set<string>> {
  const ids = [...statuses.keys()];
  if (ids.length === 0) return new Set();
  const oldStatuses = await db.query<{ id: string; status: string }>(
    "SELECT id, status FROM evaluation_scenarios WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE",
    [ids],
  );
  // A scenario still pending has no cell a batch stored (a batch stores its cells with its statuses): only
  // scenarios run before are read, so a first run of a batch reads nothing more.
  const ran = oldStatuses.filter((s) => s.status !== "pending").map((s) => s.id);
  const oldCells = ran.length === 0 ? [] : await db.query<CountedCell>(
    "SELECT scenario_id, step_key, repeat_idx, status, hash_id, flags FROM evaluation_results WHERE scenario_id = ANY($1::uuid[])",
    [ran],
  );
  const slot = (c: CountedCell) => `${c.scenario_id}/${c.step_key}/${c.repeat_idx}`;
  const before = new Map(oldCells.map((c) => [slot(c), c]));
  const after = new Map(before);
  const exist = new Set(oldStatuses.map((s) => s.id));
  for (const c of cells) if (exist.has(c.scenario_id)) after.set(slot(c), c);
  const delta: Counts = { scenarios: 0, succeeded: 0, failed: 0, invoked: 0, reused: 0, failed_cells: 0 };
  const cell = (c: CountedCell, sign: number) => {
    const reused = c.flags?.is_reused === true;
    if (c.hash_id && !reused) delta.invoked += sign;
    if (reused) delta.reused += sign;
    if (c.status === "failure") delta.failed_cells += sign;
  };
  for (const c of before.values()) cell(c, -1);
  for (const c of after.values()) cell(c, 1);
  const scenario = (status: string | undefined, sign: number) => {
    if (status === "success") delta.succeeded += sign;
    if (status === "failure") delta.failed += sign;
  };
  for (const { id, status } of oldStatuses) {
    scenario(status, -1);
    scenario(statuses.get(id), 1);
  }
  if (COLUMNS.some((c) => delta[c] !== 0)) {
    await db.query(
      `UPDATE evaluation_progress SET ${COLUMNS.map((c, i) => `${c} = ${c} + $${i + 2}`).join(", ")} WHERE run_id = $1`,
      [runId, ...COLUMNS.map((c) => delta[c])],
    );
  }
  return exist;
}

/** Drops the counters of runs whose scenarios or results are written some other way: they are counted from their rows. */
export async function forgetProgress(db: Queryable, runIds: string[]): Promise<void> {
  await db.query("DELETE FROM evaluation_progress WHERE run_id = ANY($1::uuid[])", [[...new Set(runIds)]]);
}

/** Sets a run's counters from its rows (a stopped run started again: its batches count from here). */
export async function recountProgress(db: Queryable, scope: Scope, runId: string): Promise<void> {
  const counts = await countRows(db, scope, runId);
  if (!counts) return;
  await db.query(
    `INSERT INTO evaluation_progress (run_id, ${COLUMNS.join(", ")}) VALUES ($1, ${COLUMNS.map((_, i) => `$${i + 2}`).join(", ")})
     ON CONFLICT (run_id) DO UPDATE SET ${COLUMNS.map((c) => `${c} = excluded.${c}`).join(", ")}`,
    [runId, ...COLUMNS.map((c) => counts[c])],
  );
}

/**
 * How far a run has come: scenarios by status (`linked`: those it reads from chunks an earlier run holds, stored
 * once), and how many cells were invoked, reused or failed.
 */
export async function evaluationProgress(db: Queryable, scope: Scope, runId: string) {
  const [row] = await db.query<Counts & { status: string; counted: boolean; linked: number }>(
    `SELECT r.status, p.run_id IS NOT NULL AS counted, ${COLUMNS.map((c) => `p.${c}`).join(", ")},
       (SELECT coalesce(sum(count), 0)::int FROM evaluation_run_chunks
        WHERE run_id = r.id AND source_run_id <> run_id) AS linked
     FROM evaluation_runs r LEFT JOIN evaluation_progress p ON p.run_id = r.id
     WHERE r.project_id = $1 AND r.id = $2`,
    [scope.projectId, runId],
  );
  if (!row) return null;
  const counts = row.counted ? row : (await countRows(db, scope, runId))!;
  const done = counts.succeeded + counts.failed;
  return {
    run_id: runId, status: row.status, scenarios: counts.scenarios, done, succeeded: counts.succeeded, failed: counts.failed,
    pending: counts.scenarios - done, linked: row.linked,
    cells: { invoked: counts.invoked, reused: counts.reused, failed: counts.failed_cells },
  };
}

/**
 * A run's counts from its rows: one pass over its scenarios and one over its results; the chunks it links (whose
 * scenarios all succeeded, their cells reused) from their counts.
 */
async function countRows(db: Queryable, scope: Scope, runId: string): Promise<Counts | null> {
  const [row] = await db.query<Counts>(
    `SELECT s.scenarios + l.scenarios AS scenarios, s.succeeded + l.scenarios AS succeeded, s.failed, x.invoked,
       x.reused + l.cells AS reused, x.failed_cells
     FROM evaluation_runs r,
       LATERAL (SELECT coalesce(sum(count), 0)::int AS scenarios, coalesce(sum(cells), 0)::int AS cells
                FROM evaluation_run_chunks WHERE run_id = r.id AND source_run_id <> run_id) l,
       LATERAL (SELECT count(*)::int AS scenarios, count(*) FILTER (WHERE status = 'success')::int AS succeeded,
                  count(*) FILTER (WHERE status = 'failure')::int AS failed
                FROM evaluation_scenarios WHERE run_id = r.id) s,
       LATERAL (SELECT count(*) FILTER (WHERE hash_id IS NOT NULL AND NOT reused)::int AS invoked,
                  count(*) FILTER (WHERE reused)::int AS reused, count(*) FILTER (WHERE status = 'failure')::int AS failed_cells
                FROM (SELECT hash_id, status, coalesce((flags->>'is_reused')::boolean, false) AS reused
                      FROM evaluation_results WHERE run_id = r.id) c) x
     WHERE r.project_id = $1 AND r.id = $2`,
    [scope.projectId, runId],
  );
  return row ?? null;
}
