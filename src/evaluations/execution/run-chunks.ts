import { createHash } from "node:crypto";
import type { Queryable } from "../../db/database.ts";
import { json } from "../../db/database.ts";
import { linkedRows } from "../errors.ts";
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
    throw linkedRows(linked.source_run_id, linked.run_id);
  }
  await forgetProgress(db, ids);
}

/**
 * Before runs are deleted: each chunk of theirs that a remaining run links goes to one of those runs (its scenarios,
 * results and scenario metrics move to it, results marked reused), and the other runs that link it link it there.
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
    `UPDATE evaluation_metrics m SET run_id = h.heir FROM ${ranges}
     WHERE m.run_id = h.source AND m.scenario_id BETWEEN h.first_id AND h.last_id`,
    [json(heirs)],
  );
  await db.query(
    `UPDATE evaluation_run_chunks c SET source_run_id = h.heir, source_step_key = h.to_key,
       metrics = CASE WHEN c.run_id = h.heir THEN h.metrics END
     FROM ${ranges} WHERE c.source_run_id = h.source AND c.first_id = h.first_id`,
    [json(heirs)],
  );
}
