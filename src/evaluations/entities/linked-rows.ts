import type { Queryable } from "../../db/database.ts";

/*
 * A run's scenarios, results and scenario metrics as it reads them: its own rows, and the rows of the chunks it links
 * from earlier runs (execution/run-chunks.ts), shown as its own.
 */

/** What the sources of a table's rows need of its descriptor: its name and columns (entity-table.ts). */
export interface LinkedTable {
  table: string;
  fields: Record<string, unknown>;
  derived?: string[];
}

/**
 * Tables whose rows a run can link: where the scenario id that places a row in a chunk is. A metric without one (the
 * holding run's global or temporal row) is in no chunk.
 */
const CHUNK_COLUMN: Record<string, string> = {
  evaluation_scenarios: "id", evaluation_results: "scenario_id", evaluation_metrics: "scenario_id",
};

/** Whether a run can link rows of `t` (its scenarios, results and scenario metrics). */
export const linkable = (t: LinkedTable) => t.table in CHUNK_COLUMN;

/**
 * One source of a run's rows, written as a subquery. Its argument `param` adds a value to the statement's
 * parameters and returns the value's placeholder (`$3`, say).
 */
export type RowSource = (param: (value: unknown) => string) => string;

/**
 * Where the rows of `t` (scenarios, results or scenario metrics) of the runs in `runIds` are: their own, and for each
 * run they link chunks of, that run's rows in those chunks, read as theirs (their `run_id`, their input step's key; a
 * computed result is `is_reused`). Each source reads in id order from an index (a page of a run takes the first rows
 * of each, not all of them), a result source by step key when `stepKeys` names them.
 */
export async function runSources(
  db: Queryable, projectId: string, t: LinkedTable, runIds: string[], stepKeys: string[] | null,
): Promise<RowSource[]> {
  const column = CHUNK_COLUMN[t.table];
  if (!column) throw new Error(`${t.table} rows are not linked to runs`);
  const columns = [
    "id", "project_id", "created_at", "updated_at", "created_by_id", "updated_by_id", ...Object.keys(t.fields),
    ...t.derived ?? [],
  ];
  const own: RowSource = (param) => `(SELECT ${columns.map((c) => `"${c}"`).join(", ")} FROM ${t.table} WHERE ${
    runIds.length === 1 ? `run_id = ${param(runIds[0])}::uuid` : `run_id = ANY(${param(runIds)}::uuid[])`})`;
  const groups = await db.query<{ run_id: string; source_run_id: string; step_key: string; source_step_key: string }>(
    `SELECT DISTINCT run_id, source_run_id, step_key, source_step_key FROM evaluation_run_chunks
     WHERE run_id = ANY($1::uuid[]) AND project_id = $2 AND source_run_id <> run_id`,
    [runIds, projectId],
  );
  const results = "step_key" in t.fields;
  return [own, ...groups.map((g): RowSource => (param) => {
    const [run, source] = [param(g.run_id), param(g.source_run_id)];
    const inputKey = results ? [param(g.source_step_key), param(g.step_key)] : [];
    const shown = columns.map((c) => {
      if (c === "run_id") return `${run}::uuid AS run_id`;
      if (c === "step_key") {
        return `CASE WHEN r.step_key = ${inputKey[0]} THEN ${inputKey[1]} ELSE r.step_key END AS step_key`;
      }
      if (c === "flags" && results) {
        return `CASE WHEN r.hash_id IS NULL THEN r.flags ELSE r.flags || '{"is_reused": true}' END AS flags`;
      }
      return `r."${c}"`;
    });
    const keys = results && stepKeys ? stepKeys.map((k) => (k === g.step_key ? g.source_step_key : k)) : null;
    // One key as an equality, so that the (run_id, step_key, id) index gives the rows in id order.
    const step = !keys ? ""
      : keys.length === 1 ? ` AND r.step_key = ${param(keys[0])}` : ` AND r.step_key = ANY(${param(keys)}::text[])`;
    return `(SELECT ${shown.join(", ")} FROM ${t.table} r
      CROSS JOIN LATERAL (SELECT l.last_id FROM evaluation_run_chunks l
        WHERE l.run_id = ${run}::uuid AND l.source_run_id = ${source}::uuid AND l.first_id <= r.${column}
        ORDER BY l.first_id DESC LIMIT 1) l
      WHERE r.run_id = ${source}::uuid AND r.${column} <= l.last_id${step})`;
  })];
}

/** All the rows of `t` of the runs in `runIds` (see runSources) as one subquery, its parameters added to `params`. */
export async function runRows(
  db: Queryable, projectId: string, t: LinkedTable, runIds: string[], params: unknown[],
): Promise<string> {
  const param = (value: unknown) => `$${params.push(value)}`;
  return `(${(await runSources(db, projectId, t, runIds, null)).map((source) => source(param)).join(" UNION ALL ")})`;
}
