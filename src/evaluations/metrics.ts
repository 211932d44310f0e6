import type { Scope } from "../accounts/scope.ts";
import type { Queryable } from "../db/database.ts";
import { fromJsonb } from "../db/jsonb-text.ts";
import { insertRows, type Row } from "./entity-table.ts";
import { MetricStats, typeOf } from "./metric-stats.ts";
import { linkedChunks, runRows } from "./run-chunks.ts";
import { assertOpenRuns } from "./runs.ts";
import { metrics, results } from "./tables.ts";

/*
 * Metrics are aggregates of a run's results, stored under the reference's metric keys so that its
 * clients read the same shape: per step, `attributes.ag.metrics.duration.cumulative` (ms),
 * `…errors.cumulative`, `…tokens.cumulative.total`, and for evaluator steps every leaf of the outputs
 * as `attributes.ag.data.outputs.<path>`. The reference computes them from traces; we read the
 * results we store, joined to the traces of the runs we execute.
 */

const PAGE = 2000;
const FAILED = new Set(["failure", "errors", "error"]);
const MAX_DEPTH = 3;

interface ResultRow {
  id: string;
  step_key: string;
  status: string;
  error: unknown;
  outputs: unknown;
  latency_ms: number | null;
  usage: { total_tokens?: number } | null;
}

/** Stores metrics rows given by a client, one per (run, scenario, timestamp) slot; the runs must be open. */
export async function setMetrics(db: Queryable, scope: Scope, items: Row[]): Promise<Row[]> {
  await assertOpenRuns(db, scope, items.map((m) => m.run_id as string));
  return insertRows(db, scope, metrics, items);
}

/** Recomputes the metrics of a run (scenario_id null) or of one scenario, stores and returns the row. */
export async function refreshMetrics(db: Queryable, scope: Scope, runId: string, scenarioId: string | null): Promise<Row | null> {
  const [run] = await db.query<{ data: { steps?: { key: string; type: string }[] } | null }>(
    "SELECT data FROM evaluation_runs WHERE project_id = $1 AND id = $2",
    [scope.projectId, runId],
  );
  if (!run) return null;
  const stepTypes = new Map((run.data?.steps ?? []).map((s) => [s.key, s.type]));
  const steps = new Map<string, Map<string, MetricStats>>();
  const stat = (step: string, path: string, value: unknown) => {
    const type = typeOf(value);
    if (!type) return;
    let byPath = steps.get(step);
    if (!byPath) steps.set(step, (byPath = new Map()));
    let s = byPath.get(path);
    if (!s) byPath.set(path, (s = new MetricStats(type)));
    if (s.type !== type) s.type = "json"; // mixed types: only counted
    s.add(value);
  };
  for await (const r of resultPages(db, runId, scenarioId, (key) => stepTypes.get(key) !== "input")) {
    if (r.latency_ms !== null) stat(r.step_key, "attributes.ag.metrics.duration.cumulative", r.latency_ms);
    stat(r.step_key, "attributes.ag.metrics.errors.cumulative", FAILED.has(r.status) || r.error ? 1 : 0);
    if (typeof r.usage?.total_tokens === "number") stat(r.step_key, "attributes.ag.metrics.tokens.cumulative.total", r.usage.total_tokens);
    if (stepTypes.get(r.step_key) === "annotation" || !stepTypes.has(r.step_key)) {
      leaves(r.outputs, "attributes.ag.data.outputs", 0, (path, value) => stat(r.step_key, path, value));
    }
  }
  const data: Record<string, Record<string, unknown>> = {};
  for (const [step, byPath] of steps) {
    data[step] = Object.fromEntries([...byPath].map(([path, s]) => [path, s.summary()]));
  }
  const [row] = await insertRows(db, scope, metrics, [{ run_id: runId, scenario_id: scenarioId, status: "success", data }]);
  return row;
}

/**
 * The results to aggregate, with their traces: a scenario's few at once; a run's step by step, a page at a
 * time in id order (the run's results index is (run_id, step_key, id)), so each page reads only its own rows;
 * then those of each chunk the run links, a chunk at a time (found by scenario id in the results' unique index).
 */
async function* resultPages(
  db: Queryable, runId: string, scenarioId: string | null, wanted: (stepKey: string) => boolean,
): AsyncGenerator<ResultRow> {
  const withTraces = (results: string) =>
    `SELECT r.id, r.step_key, r.status, r.error, t.outputs, t.latency_ms, t.usage
     FROM (${results}) r LEFT JOIN traces t ON t.project_id = r.project_id AND t.trace_id = r.trace_id ORDER BY r.id`;
  const columns = "id, project_id, step_key, status, error, trace_id";
  if (scenarioId) {
    const rows = await db.query<ResultRow>(
      withTraces(`SELECT ${columns} FROM ${runRows(results, "$1::uuid[]")} x WHERE scenario_id = $2`),
      [[runId], scenarioId],
    );
    for (const row of rows) if (wanted(row.step_key)) yield fromJsonb(row); // trace outputs may carry escaped NULs
    return;
  }
  for (const stepKey of (await stepKeys(db, runId)).filter(wanted)) {
    for (let after = "00000000-0000-0000-0000-000000000000"; ;) {
      const rows = await db.query<ResultRow>(
        withTraces(`SELECT ${columns} FROM evaluation_results
                    WHERE run_id = $1 AND step_key = $2 AND id > $3 ORDER BY id LIMIT ${PAGE}`),
        [runId, stepKey, after],
      );
      for (const row of rows) yield fromJsonb(row);
      if (rows.length < PAGE) break;
      after = rows[rows.length - 1].id;
    }
  }
  for (const chunk of await linkedChunks(db, runId)) {
    const rows = await db.query<ResultRow>(
      withTraces(`SELECT ${columns} FROM evaluation_results WHERE run_id = $1 AND scenario_id BETWEEN $2 AND $3`),
      [chunk.source_run_id, chunk.first_id, chunk.last_id],
    );
    for (const row of rows) {
      if (row.step_key === chunk.source_step_key) continue; // the testcase's input
      if (wanted(row.step_key)) yield fromJsonb(row);
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

/** Calls `visit` with each leaf of an output (objects opened a few levels deep; lists and deeper objects are leaves). */
function leaves(value: unknown, path: string, depth: number, visit: (path: string, value: unknown) => void): void {
  if (value !== null && typeof value === "object" && !Array.isArray(value) && depth < MAX_DEPTH) {
    for (const [key, inner] of Object.entries(value)) leaves(inner, `${path}.${key}`, depth + 1, visit);
  } else {
    visit(path, value);
  }
}
