import type { Scope } from "../../accounts/scope.ts";
import type { Database, Queryable } from "../../db/database.ts";
import { deleteRows, editRow, insertRows, type Row } from "./entity-table.ts";
import { handOverChunks } from "../execution/run-chunks.ts";
import { reconcileRun, runStepKeys } from "./run-graph.ts";
import { runs } from "./tables.ts";
import { closedRun, runNotFound } from "../errors.ts";

/** The reference's answer to a write into a closed run: 409 with the run named. */

/** Checks that every run exists in the caller's project (404) and is open (409); locks them against a concurrent close. */
export async function assertOpenRuns(db: Queryable, scope: Scope, runIds: string[]): Promise<void> {
  const ids = [...new Set(runIds)];
  const rows = await db.query<{ id: string; closed: boolean }>(
    `SELECT id, coalesce((flags->>'is_closed')::boolean, false) AS closed FROM evaluation_runs
     WHERE project_id = $1 AND id = ANY($2::uuid[]) FOR SHARE`,
    [scope.projectId, ids],
  );
  const found = new Map(rows.map((r) => [r.id, r.closed]));
  for (const id of ids) {
    if (!found.has(id)) throw runNotFound(id);
    if (found.get(id)) throw closedRun(id);
  }
}

/**
 * Edits an open run and brings it in line with its steps (run-graph.ts); a closed run is refused (409), an unknown
 * one is null.
 */
export async function editRun(db: Queryable, scope: Scope, id: string, edit: Row): Promise<Row | null> {
  const [row] = await db.query<{ closed: boolean; data: Row | null }>(
    `SELECT coalesce((flags->>'is_closed')::boolean, false) AS closed, data FROM evaluation_runs
     WHERE project_id = $1 AND id = $2 FOR UPDATE`,
    [scope.projectId, id],
  );
  if (!row) return null;
  if (row.closed) throw closedRun(id);
  const edited = await editRow(db, scope, runs, id, edit);
  return edited && reconcileRun(db, scope, edited, runStepKeys(row));
}

/** Creates runs, each brought in line with its steps (run-graph.ts). */
export async function createRuns(db: Queryable, scope: Scope, items: Row[]): Promise<Row[]> {
  const created = await insertRows(db, scope, runs, items);
  const out: Row[] = [];
  for (const run of created) out.push(await reconcileRun(db, scope, run, new Set()));
  return out;
}

/** Closes (or reopens) runs: a closed run refuses new scenarios, results and edits. Closing may set a final status. */
export async function setRunsClosed(db: Queryable, scope: Scope, ids: string[], closed: boolean, status?: string | null): Promise<Row[]> {
  const rows = await db.query<Row>(
    `UPDATE evaluation_runs SET flags = flags || jsonb_build_object('is_closed', $3::boolean),
       status = coalesce($4, status), updated_at = now(), updated_by_id = $5
     WHERE project_id = $1 AND id = ANY($2::uuid[]) RETURNING id`,
    [scope.projectId, ids, closed, status ?? null, scope.userId],
  );
  return rows;
}

/**
 * Deletes runs with everything under them; returns the ids deleted. Rows that other runs link (a re-run's reused
 * chunks) move to one of those runs first, so the runs that remain read what they read before.
 */
export async function deleteRuns(db: Database, scope: Scope, ids: string[]): Promise<string[]> {
  return db.transaction(async (tx) => {
    const own = await tx.query<{ id: string }>(
      "SELECT id FROM evaluation_runs WHERE project_id = $1 AND id = ANY($2::uuid[]) ORDER BY id FOR UPDATE",
      [scope.projectId, ids],
    );
    await handOverChunks(tx, own.map((r) => r.id));
    return deleteRows(tx, scope, runs, ids);
  });
}
