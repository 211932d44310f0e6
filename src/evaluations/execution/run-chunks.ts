import { createHash } from "node:crypto";
import type { Queryable } from "../../db/database.ts";
import { json } from "../../db/database.ts";
import { conflict } from "../../errors.ts";
import type { EntityTable } from "../entities/entity-table.ts";
import type { StepPartials } from "../metrics/metric-stats.ts";
import { forgetProgress } from "../metrics/progress.ts";
import { computedSteps, type RunStep } from "./run-steps.ts";

/*
 * A server-run evaluation's chunks (migration 019): each leaf chunk of a pinned testset revision it planned, as
 * the range of scenario ids that hold it. A cached run that meets a chunk an earlier run completed with the same
 * steps links it (one row) instead of storing copies of its scenarios and results: a re-run after a small commit
 * writes rows for the chunks that changed, and reads of its scenarios and results take the linked rows as its own.
 */

/** What a run's chunks depend on besides their testcases, and how many cells each scenario computes. */
export interface ChunkShape {
  signature: string;
  cells: number;
}

/**
 * A chunk's rows: the range of their scenario ids in the run that holds them, how many scenarios and cells, and the
 * key of the input step their input results carry.
 */
export interface ChunkRows {
  source_run_id: string;
  source_step_key: string;
  first_id: string;
  last_id: string;
  count: number;
  cells: number;
}

/**
 * The shape of a run's chunks; null when they cannot be shared: a human step's results are not computed, and a run
 * that computes nothing has nothing to reuse.
 */
export function chunkShape(data: { steps: RunStep[]; repeats?: number }): ChunkShape | null {
  if (data.steps.some((s) => s.type === "annotation" && s.origin === "human")) return null;
  const { app, graders } = computedSteps(data.steps);
  const computed = [...(app ? [app] : []), ...graders];
  if (computed.length === 0) return null;
  const repeats = Math.max(1, data.repeats ?? 1);
  const steps = computed.map((s) => [s.key, s.type, s.revisionId]);
  const signature = createHash("sha256").update(JSON.stringify([repeats, steps])).digest("hex");
  return { signature, cells: computed.length * repeats };
}

/** A chunk of a testset revision (its leaf hash) and the rows that hold it. */
export type Chunk = ChunkRows & { chunk: string };

/**
 * The complete chunks with this signature among `hashes`, each the rows of the newest run that holds it. They are
 * locked: a write to those rows, or a deletion of their run, waits until the linking transaction ends.
 */
export async function completeChunks(db: Queryable, projectId: string, signature: string, hashes: string[]) {
  const rows = await db.query<Chunk>(
    `SELECT chunk, source_run_id, source_step_key, first_id, last_id, count, cells FROM evaluation_run_chunks
     WHERE project_id = $1 AND signature = $2 AND chunk = ANY($3::text[]) AND complete AND source_run_id = run_id
     FOR SHARE`,
    [projectId, signature, [...new Set(hashes)]],
  );
  const newest = new Map<string, ChunkRows>();
  for (const { chunk, ...r } of rows) {
    const held = newest.get(chunk);
    if (!held || held.first_id < r.first_id) newest.set(chunk, r);
  }
  return newest;
}

/**
 * Records chunks of a run's input step `stepKey`: those it holds (`source_run_id` is the run), and complete ones it
 * links.
 */
export async function addChunks(
  db: Queryable, projectId: string, runId: string, stepKey: string, signature: string, chunks: Chunk[],
): Promise<void> {
  if (chunks.length === 0) return;
  await db.query(
    `INSERT INTO evaluation_run_chunks (run_id, project_id, signature, step_key, chunk, source_run_id, source_step_key,
       first_id, last_id, count, cells, complete)
     SELECT $1, $2, $3, $4, c.chunk, c.source_run_id, c.source_step_key, c.first_id, c.last_id, c.count, c.cells,
       c.source_run_id <> $1
     FROM jsonb_to_recordset($5::jsonb)
       AS c (chunk text, source_run_id uuid, source_step_key text, first_id uuid, last_id uuid, count int, cells int)`,
    [runId, projectId, signature, stepKey, json(chunks)],
  );
}

/** A run's own chunks in scenario id order: the ranges a metrics refresh sorts its results into. */
export async function ownChunks(db: Queryable, runId: string) {
  return db.query<{ first_id: string; last_id: string; cells: number }>(
    `SELECT first_id, last_id, cells FROM evaluation_run_chunks
     WHERE run_id = $1 AND source_run_id = run_id ORDER BY first_id`,
    [runId],
  );
}

/** The index of the chunk (sorted ranges of scenario ids) that holds a scenario, or -1. */
export function chunkOf(chunks: { first_id: string; last_id: string }[], scenarioId: string): number {
  let low = 0;
  let high = chunks.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (chunks[mid]!.last_id < scenarioId) low = mid + 1;
    else if (chunks[mid]!.first_id > scenarioId) high = mid - 1;
    else return mid;
  }
  return -1;
}

/** The run's own chunks that hold any of these scenarios, in scenario id order. */
export async function chunksAmong(db: Queryable, runId: string, scenarioIds: string[]) {
  const sorted = [...scenarioIds].sort();
  return db.query<{ first_id: string; last_id: string }>(
    `SELECT first_id, last_id FROM evaluation_run_chunks
     WHERE run_id = $1 AND source_run_id = run_id AND first_id <= $3 AND last_id >= $2 ORDER BY first_id`,
    [runId, sorted[0], sorted.at(-1)],
  );
}

/**
 * Stores the metrics of a run's own chunks, and marks complete each chunk whose computed results all succeeded
 * (later cached runs with the same steps may then link it, and merge its metrics instead of reading its results).
 */
export async function storeChunkMetrics(
  db: Queryable, runId: string, chunks: { first_id: string; metrics: StepPartials; complete: boolean }[],
): Promise<void> {
  for (let at = 0; at < chunks.length; at += METRICS_PER_STATEMENT) {
    await db.query(
      `UPDATE evaluation_run_chunks c SET metrics = x.metrics, complete = c.complete OR x.complete
       FROM jsonb_to_recordset($2::jsonb) AS x (first_id uuid, metrics jsonb, complete boolean)
       WHERE c.run_id = $1 AND c.first_id = x.first_id AND c.source_run_id = c.run_id`,
      [runId, json(chunks.slice(at, at + METRICS_PER_STATEMENT))],
    );
  }
}

const METRICS_PER_STATEMENT = 64;

/** A chunk a run links, with the run's key of its input step and the metrics stored for it (null if none). */
export type LinkedChunk = ChunkRows & { step_key: string; metrics: StepPartials | null };

/** The chunks a run links (rows another run holds), in scenario id order, `METRICS_PER_STATEMENT` at a time. */
export async function* linkedChunks(db: Queryable, runId: string): AsyncGenerator<LinkedChunk[]> {
  for (let after = "00000000-0000-0000-0000-000000000000"; ;) {
    const page = await db.query<LinkedChunk>(
      `SELECT l.source_run_id, l.source_step_key, l.step_key, l.first_id, l.last_id, l.count, l.cells, s.metrics
       FROM evaluation_run_chunks l
       LEFT JOIN evaluation_run_chunks s ON s.run_id = l.source_run_id AND s.first_id = l.first_id
       WHERE l.run_id = $1 AND l.source_run_id <> l.run_id AND l.first_id > $2
       ORDER BY l.first_id LIMIT ${METRICS_PER_STATEMENT}`,
      [runId, after],
    );
    if (page.length > 0) yield page;
    if (page.length < METRICS_PER_STATEMENT) return;
    after = page[page.length - 1]!.first_id;
  }
}

/** Tables whose rows a run can link: where the scenario id that places a row in a chunk is. */
const CHUNK_COLUMN: Record<string, string> = { evaluation_scenarios: "id", evaluation_results: "scenario_id" };

export const linkable = (t: EntityTable) => t.table in CHUNK_COLUMN;

/**
 * One source of a run's rows, written as a subquery. Its argument `param` adds a value to the statement's
 * parameters and returns the value's placeholder (`$3`, say).
 */
export type RowSource = (param: (value: unknown) => string) => string;

/**
 * Where the rows of `t` (scenarios or results) of the runs in `runIds` are: their own, and for each run they link
 * chunks of, that run's rows in those chunks, read as theirs (their `run_id`, their input step's key; a computed
 * result is `is_reused`). Each source reads in id order from an index (a page of a run takes the first rows of
 * each, not all of them), a result source by step key when `stepKeys` names them.
 */
export async function runSources(
  db: Queryable, projectId: string, t: EntityTable, runIds: string[], stepKeys: string[] | null,
): Promise<RowSource[]> {
  const column = CHUNK_COLUMN[t.table];
  if (!column) throw new Error(`${t.table} rows are not linked to runs`);
  const columns = [
    "id", "project_id", "created_at", "updated_at", "created_by_id", "updated_by_id", ...Object.keys(t.fields),
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
  db: Queryable, projectId: string, t: EntityTable, runIds: string[], params: unknown[],
): Promise<string> {
  const param = (value: unknown) => `$${params.push(value)}`;
  return `(${(await runSources(db, projectId, t, runIds, null)).map((source) => source(param)).join(" UNION ALL ")})`;
}

/**
 * Call before the scenarios or results of these runs are written through the entity routes: their progress and
 * metrics are counted from their rows from then on, and their chunks are no longer offered to later runs. A run
 * whose rows another run links is a 409: a write would change that run's results too.
 */
export async function beforeDirectWrite(db: Queryable, runIds: string[]): Promise<void> {
  const ids = [...new Set(runIds)];
  // Deleting the chunks first waits for a plan that is linking them, whose links the check below then sees.
  await db.query("DELETE FROM evaluation_run_chunks WHERE run_id = ANY($1::uuid[]) AND source_run_id = run_id", [ids]);
  await db.query("DELETE FROM evaluation_batch_metrics WHERE run_id = ANY($1::uuid[])", [ids]);
  const [linked] = await db.query<{ source_run_id: string; run_id: string }>(
    `SELECT source_run_id, run_id FROM evaluation_run_chunks
     WHERE source_run_id = ANY($1::uuid[]) AND source_run_id <> run_id LIMIT 1`,
    [ids],
  );
  if (linked) {
    throw conflict(
      `Evaluation run ${linked.source_run_id} holds results that run ${linked.run_id} reuses: they cannot change ` +
      `while that run exists (delete it first, or write to a run of your own)`,
    );
  }
  await forgetProgress(db, ids);
}

/**
 * Before runs are deleted: each chunk of theirs that a remaining run links goes to one of those runs (its scenarios
 * and results move to it, marked reused), and the other runs that link it link it there.
 */
export async function handOverChunks(db: Queryable, runIds: string[]): Promise<void> {
  // As in beforeDirectWrite: this waits for a plan linking these chunks, so that its links are handed over too.
  const held = await db.query<{ run_id: string; first_id: string; metrics: StepPartials | null }>(
    `DELETE FROM evaluation_run_chunks WHERE run_id = ANY($1::uuid[]) AND source_run_id = run_id
     RETURNING run_id, first_id, metrics`,
    [runIds],
  );
  const metrics = new Map(held.map((c) => [`${c.run_id}/${c.first_id}`, c.metrics]));
  type Heir = { source: string; first_id: string; last_id: string; heir: string; from_key: string; to_key: string };
  const heirs = (await db.query<Heir>(
    `SELECT DISTINCT ON (source_run_id, first_id) source_run_id AS source, first_id, last_id, run_id AS heir,
       source_step_key AS from_key, step_key AS to_key
     FROM evaluation_run_chunks WHERE source_run_id = ANY($1::uuid[]) AND run_id <> ALL($1::uuid[])
     ORDER BY source_run_id, first_id, run_id`,
    [runIds],
  )).map((h) => ({ ...h, metrics: metrics.get(`${h.source}/${h.first_id}`) ?? null }));
  if (heirs.length === 0) return;
  const ranges = `jsonb_to_recordset($1::jsonb)
    AS h (source uuid, first_id uuid, last_id uuid, heir uuid, from_key text, to_key text, metrics jsonb)`;
  await db.query(
    `UPDATE evaluation_scenarios s SET run_id = h.heir FROM ${ranges}
     WHERE s.run_id = h.source AND s.id BETWEEN h.first_id AND h.last_id`,
    [json(heirs)],
  );
  await db.query(
    `UPDATE evaluation_results x SET run_id = h.heir,
       step_key = CASE WHEN x.step_key = h.from_key THEN h.to_key ELSE x.step_key END,
       flags = CASE WHEN x.hash_id IS NULL THEN x.flags ELSE x.flags || '{"is_reused": true}' END
     FROM ${ranges} WHERE x.run_id = h.source AND x.scenario_id BETWEEN h.first_id AND h.last_id`,
    [json(heirs)],
  );
  await db.query(
    `UPDATE evaluation_run_chunks c SET source_run_id = h.heir, source_step_key = h.to_key,
       metrics = CASE WHEN c.run_id = h.heir THEN h.metrics END
     FROM ${ranges} WHERE c.source_run_id = h.source AND c.first_id = h.first_id`,
    [json(heirs)],
  );
}
