import type { Scope } from "../../accounts/scope.ts";
import type { Queryable } from "../../db/database.ts";
import { fromJsonb } from "../../db/jsonb-text.ts";
import { insertRows, type Row } from "../entities/entity-table.ts";
import type { BatchMetrics } from "../execution/batch-cells.ts";
import { addResult, type MetricSource, StepStats } from "./metric-stats.ts";
import { chunkOf, linkedChunks, ownChunks, storeChunkMetrics } from "../execution/run-chunks.ts";
import { assertOpenRuns } from "../entities/runs.ts";
import { metrics, results } from "../entities/tables.ts";
import { metricScenarioAndTimestamp } from "../errors.ts";

/*
 * Metrics are aggregates of a run's results, stored under the reference's metric keys so that its
 * clients read the same shape: per step, `attributes.ag.metrics.duration.cumulative` (ms),
 * `…errors.cumulative`, `…tokens.cumulative.total`, and for evaluator steps every leaf of the outputs
 * as `attributes.ag.data.outputs.<path>`. The reference computes them from traces; we read the
 * results we store, joined to the traces of the runs we execute.
 */

const PAGE = 2000;

interface ResultRow extends MetricSource {
  id: string;
  scenario_id: string;
}

/** Stores metrics rows given by a client, one per (run, scenario, timestamp) slot; the runs must be open. */
export async function setMetrics(db: Queryable, scope: Scope, items: Row[]): Promise<Row[]> {
  // A metric is a run's (global), a scenario's (variational) or a time bucket's (temporal), never two at once.
  const both = items.findIndex((m) => m.scenario_id != null && m.timestamp != null);
  if (both !== -1) {
    throw metricScenarioAndTimestamp(both);
  }
  await assertOpenRuns(db, scope, items.map((m) => m.run_id as string));
  return insertRows(db, scope, metrics, items);
}

/**
 * Recomputes the global metrics of a run (scenario_id null), stores and returns the row; a scenario's are in
 * scenario-metrics.ts. A run's results are also sorted into its own chunks (run-chunks.ts), whose metrics are stored
 * with them; a chunk it links adds the metrics stored for it instead of its results.
 */
export async function refreshMetrics(db: Queryable, scope: Scope, runId: string): Promise<Row | null> {
  const [run] = await db.query<{ data: { steps?: { key: string; type: string }[] } | null }>(
    "SELECT data FROM evaluation_runs WHERE project_id = $1 AND id = $2",
    [scope.projectId, runId],
  );
  if (!run) return null;
  const stepTypes = new Map((run.data?.steps ?? []).map((s) => [s.key, s.type]));
  // A bare run (no step that invokes or annotates) has nothing to measure, as the reference answers.
  if (![...stepTypes.values()].some((type) => type !== "input")) return null;
  const wanted = (key: string) => stepTypes.get(key) !== "input";
  const total = new StepStats();
  const add = (stats: StepStats, r: ResultRow) =>
    addResult(stats, r, stepTypes.get(r.step_key) === "annotation" || !stepTypes.has(r.step_key));
  const chunks = (await ownChunks(db, runId)).map((c) => ({ ...c, stats: new StepStats(), succeeded: 0 }));
  const inputKeys = [...stepTypes].filter(([, type]) => type === "input").map(([key]) => key);
  const batches = await batchMetrics(db, runId, inputKeys);
  if (batches) {
    for (const b of batches) {
      const chunk = chunks[chunkOf(chunks, b.first_scenario_id)];
      (chunk?.stats ?? total).merge(b.metrics);
      if (chunk) chunk.succeeded += b.succeeded;
    }
  } else {
    for await (const r of resultPages(db, runId, null, wanted)) {
      const chunk = chunks[chunkOf(chunks, r.scenario_id)];
      add(chunk?.stats ?? total, r);
      if (chunk && r.status === "success") chunk.succeeded++;
    }
  }
  const partials = chunks.map((c) => ({
    first_id: c.first_id, metrics: c.stats.partials(), complete: c.succeeded === c.cells,
  }));
  for (const p of partials) total.merge(p.metrics);
  await storeChunkMetrics(db, runId, partials);
  for await (const page of linkedChunks(db, runId)) {
    for (const chunk of page) {
      if (chunk.metrics) total.merge(chunk.metrics);
      else for await (const r of resultPages(db, chunk.source_run_id, chunk, wanted)) add(total, r);
    }
  }
  const data = total.summary();
  const row = { run_id: runId, scenario_id: null, status: "success", data };
  const [stored] = await insertRows(db, scope, metrics, [row]);
  return stored;
}

/**
 * Stores, in a batch's transaction, what its cells add to their run's metrics (computed as they ran): a row for the
 * cells of each chunk of the run, under the first of their scenarios.
 */
export async function storeBatchMetrics(db: Queryable, runId: string, batch: BatchMetrics[]): Promise<void> {
  if (batch.length === 0) return;
  await db.query(
    `INSERT INTO evaluation_batch_metrics (run_id, first_scenario_id, cells, succeeded, metrics)
     SELECT $1, x.first_scenario_id, x.cells, x.succeeded, x.metrics
     FROM json_to_recordset($2::json) AS x (first_scenario_id uuid, cells int, succeeded int, metrics json)
     ON CONFLICT (run_id, first_scenario_id) DO UPDATE
     SET cells = excluded.cells, succeeded = excluded.succeeded, metrics = excluded.metrics`,
    [runId, JSON.stringify(batch)],
  );
}

/**
 * The metrics a run's batches stored, when they account for every result the run holds outside its input steps;
 * otherwise null, and the results are read instead (a client wrote to the run, or its plan stored cells itself).
 */
async function batchMetrics(db: Queryable, runId: string, inputKeys: string[]) {
  const batches = await db.query<BatchMetrics>(
    "SELECT first_scenario_id, cells, succeeded, metrics FROM evaluation_batch_metrics WHERE run_id = $1",
    [runId],
  );
  if (batches.length === 0) return null;
  const [held] = await db.query<{ count: number }>(
    "SELECT count(*)::int AS count FROM evaluation_results WHERE run_id = $1 AND step_key <> ALL($2::text[])",
    [runId, inputKeys],
  );
  return batches.reduce((n, b) => n + b.cells, 0) === held?.count ? batches : null;
}

const withTraces = (results: string) =>
  `SELECT r.id, r.scenario_id, r.step_key, r.status, r.error, t.outputs, t.latency_ms, t.usage
   FROM (${results}) r LEFT JOIN traces t ON t.project_id = r.project_id AND t.trace_uuid = trace_uuid(r.trace_id)
   ORDER BY r.id`;
const COLUMNS = "id, project_id, scenario_id, step_key, status, error, trace_id";

/**
 * The results of a run to aggregate, with their traces: step by step, a page at a time in id order (the run's
 * results index is (run_id, step_key, id)), so each page reads only its own rows; or those of one chunk of the run
 * (found by scenario id in the results' unique index), less its input.
 */
async function* resultPages(
  db: Queryable, runId: string, chunk: { first_id: string; last_id: string; source_step_key: string } | null,
  wanted: (stepKey: string) => boolean,
): AsyncGenerator<ResultRow> {
  if (chunk) {
    const rows = await db.query<ResultRow>(
      withTraces(`SELECT ${COLUMNS} FROM evaluation_results WHERE run_id = $1 AND scenario_id BETWEEN $2 AND $3`),
      [runId, chunk.first_id, chunk.last_id],
    );
    for (const row of rows) if (row.step_key !== chunk.source_step_key && wanted(row.step_key)) yield fromJsonb(row);
    return;
  }
  for (const stepKey of (await stepKeys(db, runId)).filter(wanted)) {
    for (let after = "00000000-0000-0000-0000-000000000000"; ;) {
      const rows = await db.query<ResultRow>(
        withTraces(`SELECT ${COLUMNS} FROM evaluation_results
                    WHERE run_id = $1 AND step_key = $2 AND id > $3 ORDER BY id LIMIT ${PAGE}`),
        [runId, stepKey, after],
      );
      for (const row of rows) yield fromJsonb(row);
      if (rows.length < PAGE) break;
      after = rows[rows.length - 1].id;
    }
  }
}

/** The step keys a run's results use, one index probe each (a client-driven run may name keys its steps do not). */
async function stepKeys(db: Queryable, runId: string): Promise<string[]> {
  const rows = await db.query<{ step_key: string }>(
    `WITH RECURSIVE k AS (
       (SELECT step_key FROM evaluation_results WHERE run_id = $1 ORDER BY step_key LIMIT 1)
       UNION ALL
       SELECT (SELECT step_key FROM evaluation_results
               WHERE run_id = $1 AND step_key > k.step_key ORDER BY step_key LIMIT 1)
       FROM k WHERE k.step_key IS NOT NULL
     )
     SELECT step_key FROM k WHERE step_key IS NOT NULL`,
    [runId],
  );
  return rows.map((r) => r.step_key);
}

