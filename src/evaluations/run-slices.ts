import type { Scope } from "../accounts/scope.ts";
import type { Queryable } from "../db/database.ts";
import { deleteRows, fetchRows, queryRows, type Row } from "./entities/entity-table.ts";
import { refreshMetrics } from "./metrics/metrics.ts";
import { refreshScenarioMetrics } from "./metrics/scenario-metrics.ts";
import { beforeDirectWrite } from "./execution/run-chunks.ts";
import { assertOpenRuns, editRun } from "./entities/runs.ts";
import { dispatchScenarios, isServerRun } from "./simple-evaluations.ts";
import type { RunStep } from "./execution/run-steps.ts";
import { results, runs, scenarios } from "./entities/tables.ts";
import { foreignScenario } from "./errors.ts";

/*
 * The reference's slice operations on a run's existing scenarios (`/simple/evaluations/{id}/probe|process|prune`,
 * `scenarios/remove`, `repeats/set`). A slice names cells by coordinates: scenarios, steps, repeats; a coordinate
 * left out takes all of them.
 */

/** Cells of a run by coordinates. */
export interface RunSlice {
  scenario_ids?: string[] | null;
  step_keys?: string[] | null;
  repeat_idxs?: number[] | null;
}

// The slice's conditions on evaluation_results, from parameter $3 on ($1 project, $2 run).
function sliceWhere(slice: RunSlice): { where: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  const add = (column: string, values: unknown[] | null | undefined, type: string) => {
    if (!values) return;
    params.push(values);
    parts.push(`${column} = ANY($${params.length + 2}::${type}[])`);
  };
  add("scenario_id", slice.scenario_ids, "uuid");
  add("step_key", slice.step_keys, "text");
  add("repeat_idx", slice.repeat_idxs, "int");
  return { where: parts.map((p) => ` AND ${p}`).join(""), params };
}

/** The results a slice of the run holds (its own and those it links). */
export async function probeSlice(db: Queryable, scope: Scope, runId: string, slice: RunSlice): Promise<Row[]> {
  const filter = {
    run_id: runId, scenario_ids: slice.scenario_ids ?? undefined, step_keys: slice.step_keys ?? undefined,
    repeat_idxs: slice.repeat_idxs ?? undefined,
  };
  return (await queryRows(db, scope, results, filter, null)).items;
}

/**
 * Invokes a slice of a server-run evaluation again: its scenarios with a cell of the slice missing or failed (every
 * scenario of the slice with `overwrite`, then without reusing earlier results), in batches that any process takes;
 * the run is active until they are done. A run its client drives has nothing for the server to run.
 */
export async function processSlice(
  tx: Queryable, scope: Scope, runId: string, slice: RunSlice & { overwrite?: boolean | null }, batchSize: number,
): Promise<void> {
  await assertOpenRuns(tx, scope, [runId]);
  if (!(await isServerRun(tx, runId))) return;
  const [run] = await fetchRows(tx, scope, runs, [runId]);
  const data = run.data as { steps?: RunStep[]; repeats?: number } | null;
  // The cells a scenario of the slice should hold: each step the server invokes, in each repeat.
  const stepKeys = (data?.steps ?? []).filter((step) => step.type !== "input").map((step) => step.key)
    .filter((key) => !slice.step_keys || slice.step_keys.includes(key));
  const repeats = Array.from({ length: data?.repeats ?? 1 }, (_, i) => i)
    .filter((i) => !slice.repeat_idxs || slice.repeat_idxs.includes(i));
  const chosen = await tx.query<{ id: string }>(
    `SELECT s.id FROM evaluation_scenarios s
     WHERE s.project_id = $1 AND s.run_id = $2 AND ($3::uuid[] IS NULL OR s.id = ANY($3::uuid[]))
       AND ($4::boolean OR s.status <> 'success' OR EXISTS (
         SELECT 1 FROM unnest($5::text[]) AS k (step_key) CROSS JOIN unnest($6::int[]) AS i (repeat_idx)
         WHERE NOT EXISTS (
           SELECT 1 FROM evaluation_results r
           WHERE r.run_id = $2 AND r.scenario_id = s.id AND r.step_key = k.step_key AND r.repeat_idx = i.repeat_idx
             AND r.status = 'success')))
     ORDER BY s.id`,
    [scope.projectId, runId, slice.scenario_ids ?? null, slice.overwrite === true, stepKeys, repeats],
  );
  if (!chosen.length) return;
  await beforeDirectWrite(tx, [runId]);
  await tx.query(
    `UPDATE evaluation_runs SET flags = flags || '{"is_active": true}', status = 'queued', updated_at = now()
     WHERE project_id = $1 AND id = $2`,
    [scope.projectId, runId],
  );
  await dispatchScenarios(tx, scope, runId, chosen.map((r) => r.id), batchSize, slice.overwrite === true);
}

/**
 * Deletes the results of a slice of the run (its own rows), then recomputes the run's metrics and those of the
 * scenarios that lost results.
 */
export async function pruneSlice(tx: Queryable, scope: Scope, runId: string, slice: RunSlice): Promise<void> {
  await assertOpenRuns(tx, scope, [runId]);
  await beforeDirectWrite(tx, [runId]);
  const { where, params } = sliceWhere(slice);
  const sql = `DELETE FROM evaluation_results WHERE project_id = $1 AND run_id = $2${where} RETURNING scenario_id`;
  const pruned = await tx.query<{ scenario_id: string }>(sql, [scope.projectId, runId, ...params]);
  await refreshMetrics(tx, scope, runId);
  await refreshScenarioMetrics(tx, scope, runId, pruned.map((r) => r.scenario_id), { returning: false });
}

/** Removes scenarios of the run with their results; one that is not the run's is a 400 and nothing is removed. */
export async function removeScenarios(
  tx: Queryable, scope: Scope, runId: string, scenarioIds: string[],
): Promise<void> {
  await assertOpenRuns(tx, scope, [runId]);
  const owned = new Set((await tx.query<{ id: string }>(
    "SELECT id FROM evaluation_scenarios WHERE project_id = $1 AND run_id = $2 AND id = ANY($3::uuid[])",
    [scope.projectId, runId, scenarioIds],
  )).map((r) => r.id));
  const stranger = scenarioIds.find((id) => !owned.has(id));
  if (stranger) {
    throw foreignScenario(stranger, runId);
  }
  await beforeDirectWrite(tx, [runId]);
  await deleteRows(tx, scope, scenarios, scenarioIds);
}

/** Sets how many times each scenario is run (`data.repeats`); returns the run, or null when it is not the caller's. */
export async function setRepeats(tx: Queryable, scope: Scope, runId: string, repeats: number): Promise<Row | null> {
  const [run] = await fetchRows(tx, scope, runs, [runId]);
  if (!run) return null;
  return editRun(tx, scope, runId, { data: { ...(run.data as Row | null), repeats } });
}
