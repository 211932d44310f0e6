import type { Scope } from "../../accounts/scope.ts";
import type { Queryable } from "../../db/database.ts";
import { fromJsonb } from "../../db/jsonb-text.ts";
import { copyRows, type EntityTable, insertRows, type Row } from "../entities/entity-table.ts";
import { metrics } from "../entities/tables.ts";
import type { ScenarioMetrics } from "../execution/batch-cells.ts";
import { addResult, type MetricSource, StepStats } from "./metric-stats.ts";

/*
 * Variational metrics: one row a scenario (scenario_id set, timestamp null), its results over every repeat in the
 * shape of the run's global row. A batch stores those of its scenarios as it stores their results (in the same
 * transaction, each by COPY); a scenario the plan stores done (every cell reused) gets its row from its results
 * there. A scenario of a chunk a run links is the holding run's, and so is its row: the linking run reads it as its
 * own (entities/linked-rows.ts), the way it reads that scenario and its results, and writes none.
 */

/** Scenarios a refresh reads and writes a statement: a batch's worth. */
export const SCENARIOS_PER_STATEMENT = 200;

/** The metrics table as a batch writes it: compact, `partials` set and `data` NULL (migration 033, tables.ts). */
const compact: EntityTable = {
  ...metrics, fields: { ...metrics.fields, partials: null }, derived: [],
  slot: { ...metrics.slot!, update: [...metrics.slot!.update, "partials"] },
};

/**
 * Stores (or replaces) these scenarios' metrics in the run that holds them, compact, in one COPY (in a transaction):
 * a batch's rows as a JSON parameter taken apart by `jsonb_populate_recordset` and upserted cost the embedded database
 * about three times the COPY's time. A row whose slot is taken (the batch stored before, then ran again) sends the
 * load through the upsert instead (`copyRows`).
 */
export async function storeScenarioMetrics(
  db: Queryable, scope: Scope, runId: string, items: ScenarioMetrics[],
): Promise<void> {
  const rows = items.map(({ scenario_id, partials }) => ({ run_id: runId, scenario_id, status: "success", partials }));
  await copyRows(db, scope, compact, rows);
}

/** Where a scenario the run shows is held: the run itself, or the run whose chunk it links (with its input key). */
interface Held {
  scenario_id: string;
  holder: string;
  source_step_key: string | null;
}

/**
 * Recomputes, from their results, the metrics of these scenarios of the run (its own, and those of chunks it links,
 * stored in the run that holds them), and returns the rows as the run's. A scenario the run does not show is left
 * out; one without results loses its row, as it has nothing to measure.
 */
export async function refreshScenarioMetrics(
  db: Queryable, scope: Scope, runId: string, scenarioIds: string[], options: { returning?: boolean } = {},
): Promise<Row[]> {
  const [run] = await db.query<{ data: { steps?: { key: string; type: string }[] } | null }>(
    "SELECT data FROM evaluation_runs WHERE project_id = $1 AND id = $2",
    [scope.projectId, runId],
  );
  if (!run) return [];
  const stepTypes = new Map((run.data?.steps ?? []).map((s) => [s.key, s.type]));
  const answered: Row[] = [];
  const ids = [...new Set(scenarioIds)];
  for (let at = 0; at < ids.length; at += SCENARIOS_PER_STATEMENT) {
    const held = await heldScenarios(db, scope, runId, ids.slice(at, at + SCENARIOS_PER_STATEMENT));
    if (held.length === 0) continue;
    // Scenario by scenario through the results' key, and result by result through the traces' key: with the
    // estimates of tables just loaded (a run's first statistics come later), a join here was planned as scans of
    // whole tables, which on PostgreSQL outlasted the statement timeout (OFFSET 0 keeps each lookup a lookup).
    const rows = await db.query<MetricSource & { scenario_id: string }>(
      `SELECT r.scenario_id, r.step_key, r.status, r.error, t.outputs, t.latency_ms, t.usage
       FROM unnest($2::uuid[]) AS s (id)
       CROSS JOIN LATERAL (
         SELECT id, scenario_id, step_key, status, error, trace_id FROM evaluation_results
         WHERE scenario_id = s.id AND project_id = $1 OFFSET 0) r
       LEFT JOIN LATERAL (
         SELECT outputs, latency_ms, usage FROM traces
         WHERE project_id = $1 AND trace_uuid = trace_uuid(r.trace_id) LIMIT 1) t ON true
       ORDER BY r.id`,
      [scope.projectId, held.map((h) => h.scenario_id)],
    );
    const byScenario = new Map(held.map((h) => [h.scenario_id, { held: h, stats: null as StepStats | null }]));
    for (const row of rows) {
      const entry = byScenario.get(row.scenario_id)!;
      const type = stepTypes.get(row.step_key);
      if (type === "input" || row.step_key === entry.held.source_step_key) continue;
      entry.stats ??= new StepStats();
      addResult(entry.stats, fromJsonb(row), type === "annotation" || type === undefined);
    }
    const measured = [...byScenario.values()].filter((e) => e.stats !== null);
    const empty = [...byScenario.values()].filter((e) => e.stats === null).map((e) => e.held.scenario_id);
    if (empty.length > 0) {
      await db.query(
        `DELETE FROM evaluation_metrics
         WHERE project_id = $1 AND scenario_id = ANY($2::uuid[]) AND "timestamp" IS NULL`,
        [scope.projectId, empty],
      );
    }
    const stored = await insertRows(db, scope, metrics, measured.map((e) => ({
      run_id: e.held.holder, scenario_id: e.held.scenario_id, status: "success", data: e.stats!.summary(),
    })), options);
    answered.push(...stored.map((row) => ({ ...row, run_id: runId })));
  }
  return answered;
}

/** Which of these scenarios the run shows, and where each is held (one probe of the scenarios' key each). */
function heldScenarios(db: Queryable, scope: Scope, runId: string, ids: string[]): Promise<Held[]> {
  return db.query<Held>(
    `SELECT s.id AS scenario_id, s.run_id AS holder, l.source_step_key
     FROM evaluation_scenarios s
     LEFT JOIN LATERAL (
       SELECT c.last_id, c.source_step_key FROM evaluation_run_chunks c
       WHERE c.run_id = $2 AND c.source_run_id = s.run_id AND c.source_run_id <> c.run_id AND c.first_id <= s.id
       ORDER BY c.first_id DESC LIMIT 1) l ON s.run_id <> $2
     WHERE s.project_id = $1 AND s.id = ANY($3::uuid[]) AND (s.run_id = $2 OR s.id <= l.last_id)`,
    [scope.projectId, runId, ids],
  );
}
