import type { Queryable } from "../db/database.ts";
import { json } from "../db/database.ts";
import type { ReadContext } from "../versioning/kind.ts";
import type { RevisionRow } from "../versioning/rows.ts";
import { idPages, loadLeaves, unpackIds, type StoredIds } from "./chunk-lists.ts";
import { chunkKey, readChunks, type Leaf } from "./chunks.ts";
import { canonicalJson } from "./canonical-json.ts";
import { ColumnCounts, columnNames } from "./columns.ts";
import { loadTestcases, type TestcaseRow } from "./testcases.ts";

/** Rows listed per category (added, removed, changed); the counts are always complete. */
export const DIFF_ROWS = 1000;

/**
 * Rows added, removed and changed from `base` to `target`, matched by `data.testcase_dedup_id` (else
 * by id), and the columns added and removed. Chunks both revisions share hold the same rows in the
 * same order, so only the chunks that differ are read: the cost follows the change, not the testset.
 */
export async function diffTestsetRevisions(read: ReadContext, base: RevisionRow, target: RevisionRow) {
  const { db } = read;
  const projectId = read.scope.projectId;
  const from = (base.data as StoredIds | null) ?? { count: 0 };
  const to = (target.data as StoredIds | null) ?? { count: 0 };
  const [baseLeaves, targetLeaves] = await Promise.all([loadLeaves(db, projectId, from), loadLeaves(db, projectId, to)]);
  const baseHashes = new Set(baseLeaves.map((l) => l.hash));
  const targetHashes = new Set(targetLeaves.map((l) => l.hash));
  const shared = baseLeaves.filter((l) => targetHashes.has(l.hash));
  const [baseIds, targetIds] = await Promise.all([
    idsOf(db, projectId, baseLeaves.filter((l) => !targetHashes.has(l.hash))),
    idsOf(db, projectId, targetLeaves.filter((l) => !baseHashes.has(l.hash))),
  ]);
  // A row that left a chunk of one side may still sit in a chunk both share (it moved or repeats).
  const candidates = [...[...baseIds].filter((id) => !targetIds.has(id)), ...[...targetIds].filter((id) => !baseIds.has(id))];
  const inShared = await idsInLeaves(db, projectId, candidates, shared);
  const rows = new Map((await loadTestcases(db, projectId, candidates.filter((id) => !inShared.has(id)))).map((r) => [r.id, r]));
  const key = (row: TestcaseRow) => String(row.data.testcase_dedup_id ?? row.id);
  const removedRows = new Map<string, TestcaseRow>();
  const addedRows = new Map<string, TestcaseRow>();
  for (const row of rows.values()) (baseIds.has(row.id) ? removedRows : addedRows).set(key(row), row);

  const changed = [];
  for (const [k, after] of addedRows) {
    const before = removedRows.get(k);
    if (!before) continue;
    removedRows.delete(k);
    addedRows.delete(k);
    changed.push({ id: before.id, new_id: after.id, testcase_dedup_id: before.data.testcase_dedup_id ?? null, fields: changedFields(before.data, after.data) });
  }
  const [baseColumns, targetColumns] = await Promise.all([columnsOf(db, projectId, from), columnsOf(db, projectId, to)]);
  const row = (r: TestcaseRow) => ({ id: r.id, data: r.data });
  return {
    counts: { base: from.count, target: to.count, added: addedRows.size, removed: removedRows.size, changed: changed.length },
    columns: {
      added: targetColumns.filter((c) => !baseColumns.includes(c)),
      removed: baseColumns.filter((c) => !targetColumns.includes(c)),
    },
    testcases: {
      added: [...addedRows.values()].slice(0, DIFF_ROWS).map(row),
      removed: [...removedRows.values()].slice(0, DIFF_ROWS).map(row),
      changed: changed.slice(0, DIFF_ROWS),
    },
    truncated: Math.max(addedRows.size, removedRows.size, changed.length) > DIFF_ROWS,
  };
}

async function idsOf(db: Queryable, projectId: string, leaves: Leaf[]): Promise<Set<string>> {
  const bytes = await readChunks(db, projectId, leaves.map((l) => l.hash));
  return new Set(leaves.flatMap((l) => unpackIds(bytes.get(l.hash)!)));
}

/** Which of `ids` some of `leaves` hold, by the chunk index (a key collision only costs a false "moved"). */
async function idsInLeaves(db: Queryable, projectId: string, ids: string[], leaves: Leaf[]): Promise<Set<string>> {
  if (!ids.length || !leaves.length) return new Set();
  const keys = new Set(leaves.map((l) => chunkKey(l.hash)));
  const rows = await db.query<{ id: string; chunk_key: string }>(
    `SELECT testcase_id AS id, chunk_key::text AS chunk_key FROM testcase_chunk_index
     WHERE project_id = $1 AND testcase_id IN (SELECT x::uuid FROM jsonb_array_elements_text($2::jsonb) x)`,
    [projectId, json(ids)],
  );
  return new Set(rows.filter((r) => keys.has(r.chunk_key)).map((r) => r.id));
}

function changedFields(before: Record<string, unknown>, after: Record<string, unknown>) {
  const fields: Record<string, { from: unknown; to: unknown }> = {};
  for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (canonicalJson(before[name] ?? null) !== canonicalJson(after[name] ?? null)) fields[name] = { from: before[name] ?? null, to: after[name] ?? null };
  }
  return fields;
}

/** The revision's columns: kept in its record, else (revisions committed by id list) read from its rows. */
async function columnsOf(db: Queryable, projectId: string, stored: StoredIds): Promise<string[]> {
  if (stored.columns) return columnNames(stored.columns);
  const counts = new ColumnCounts();
  for await (const ids of idPages(db, projectId, stored)) for (const row of await loadTestcases(db, projectId, ids)) counts.add(row.data);
  return columnNames(counts.toJSON());
}
