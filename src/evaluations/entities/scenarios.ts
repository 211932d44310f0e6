import type { Scope } from "../../accounts/scope.ts";
import type { Queryable } from "../../db/database.ts";
import { editRow, insertRows, type Row } from "./entity-table.ts";
import { beforeDirectWrite } from "../execution/run-chunks.ts";
import { assertOpenRuns } from "./runs.ts";
import { scenarios } from "./tables.ts";
import { unknownScenarios } from "../errors.ts";

/** Adds scenarios to open runs of the caller's project (404 for an unknown run, 409 for a closed one). */
export async function createScenarios(db: Queryable, scope: Scope, items: Row[]): Promise<Row[]> {
  await assertOpenRuns(db, scope, items.map((s) => s.run_id as string));
  await beforeDirectWrite(db, items.map((s) => s.run_id as string));
  return insertRows(db, scope, scenarios, items);
}

/** Appends `count` empty scenarios to a run, optionally in the minute bucket of `timestamp`. */
export async function addScenarios(db: Queryable, scope: Scope, runId: string, count: number, timestamp?: string | null) {
  const minute = timestamp ? new Date(Math.floor(Date.parse(timestamp) / 60_000) * 60_000).toISOString() : null;
  const items = Array.from({ length: count }, () => ({ run_id: runId, timestamp: minute, interval: minute ? 1 : null }));
  return createScenarios(db, scope, items);
}

/** Edits a scenario of an open run; null when there is no such scenario. */
export async function editScenario(db: Queryable, scope: Scope, id: string, edit: Row): Promise<Row | null> {
  const runId = await runOf(db, scope, "evaluation_scenarios", id);
  if (!runId) return null;
  await assertOpenRuns(db, scope, [runId]);
  await beforeDirectWrite(db, [runId]);
  return editRow(db, scope, scenarios, id, edit);
}

/** The run a scenario, result or metrics row belongs to, when it is the caller's. */
export async function runOf(db: Queryable, scope: Scope, table: string, id: string): Promise<string | null> {
  const [row] = await db.query<{ run_id: string }>(`SELECT run_id FROM ${table} WHERE project_id = $1 AND id = $2`, [scope.projectId, id]);
  return row?.run_id ?? null;
}

/** Checks that each (scenario, run) pair names a scenario of that run in the caller's project (400 otherwise). */
export async function assertScenariosOfRuns(db: Queryable, scope: Scope, pairs: { scenario_id: string; run_id: string }[]) {
  const ids = [...new Set(pairs.map((p) => p.scenario_id))];
  const rows = await db.query<{ id: string; run_id: string }>(
    // Locked as a foreign key's check would lock them: a scenario cannot be deleted before its results are stored.
    "SELECT id, run_id FROM evaluation_scenarios WHERE project_id = $1 AND id = ANY($2::uuid[]) FOR KEY SHARE",
    [scope.projectId, ids],
  );
  const runs = new Map(rows.map((r) => [r.id, r.run_id]));
  const missing = [...new Set(pairs.filter((p) => runs.get(p.scenario_id) !== p.run_id).map((p) => p.scenario_id))];
  if (missing.length > 0) {
    throw unknownScenarios(missing);
  }
}
