import type { Queryable } from "../db/database.ts";
import type { ReadContext } from "../versioning/kind.ts";
import type { RevisionRow } from "../versioning/rows.ts";
import { idPages, loadLeaves, unpackIds, type StoredIds } from "./chunk-lists.ts";
import { readChunks, type Leaf } from "./chunks.ts";
import { canonicalJson } from "./canonical-json.ts";
import { ColumnCounts } from "./columns.ts";
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
  // A chunk both sides hold (as often on each) holds the same rows on both: only the other chunks are read.
  const [baseOnly, targetOnly] = unsharedLeaves(baseLeaves, targetLeaves);
  const [baseIds, targetIds] = await Promise.all([idsOf(db, projectId, baseOnly), idsOf(db, projectId, targetOnly)]);
  // A multiset difference: a row that repeats counts once per copy, and a moved row cancels out.
  const balance = new Map<string, number>();
  for (const id of targetIds) balance.set(id, (balance.get(id) ?? 0) + 1);
  for (const id of baseIds) balance.set(id, (balance.get(id) ?? 0) - 1);
  for (const [id, n] of balance) if (n === 0) balance.delete(id);
  const rows = new Map((await loadTestcases(db, projectId, [...balance.keys()])).map((r) => [r.id, r]));
  const key = (row: TestcaseRow) => String(row.data.testcase_dedup_id ?? row.id);
  const removedRows = new Map<string, TestcaseRow[]>();
  const addedRows = new Map<string, TestcaseRow[]>();
  for (const [id, n] of balance) {
    const row = rows.get(id)!;
    const side = n > 0 ? addedRows : removedRows;
    const copies = side.get(key(row)) ?? [];
    for (let i = 0; i < Math.abs(n); i++) copies.push(row);
    side.set(key(row), copies);
  }

  const changed = [];
  for (const [k, afters] of addedRows) {
    const befores = removedRows.get(k);
    while (befores?.length && afters.length) {
      const before = befores.shift()!;
      const after = afters.shift()!;
      const dedupId = before.data.testcase_dedup_id ?? null;
      const fields = changedFields(before.data, after.data);
      changed.push({ id: before.id, new_id: after.id, testcase_dedup_id: dedupId, fields });
    }
  }
  const added = [...addedRows.values()].flat();
  const removed = [...removedRows.values()].flat();
  const [baseColumns, targetColumns] = await Promise.all([columnsOf(db, projectId, from), columnsOf(db, projectId, to)]);
  const row = (r: TestcaseRow) => ({ id: r.id, data: r.data });
  return {
    counts: {
      base: from.count, target: to.count, added: added.length, removed: removed.length, changed: changed.length,
    },
    columns: {
      added: targetColumns.filter((c) => !baseColumns.includes(c)),
      removed: baseColumns.filter((c) => !targetColumns.includes(c)),
    },
    testcases: {
      added: added.slice(0, DIFF_ROWS).map(row),
      removed: removed.slice(0, DIFF_ROWS).map(row),
      changed: changed.slice(0, DIFF_ROWS),
    },
    truncated: Math.max(added.length, removed.length, changed.length) > DIFF_ROWS,
  };
}

async function idsOf(db: Queryable, projectId: string, leaves: Leaf[]): Promise<string[]> {
  const bytes = await readChunks(db, projectId, [...new Set(leaves.map((l) => l.hash))]);
  return leaves.flatMap((l) => unpackIds(bytes.get(l.hash)!));
}

/** Each side's leaves less those the other holds too, counted: a chunk held twice here and once there stays once. */
function unsharedLeaves(base: Leaf[], target: Leaf[]): [Leaf[], Leaf[]] {
  return [minus(base, target), minus(target, base)];
}

function minus(leaves: Leaf[], other: Leaf[]): Leaf[] {
  const held = new Map<string, number>();
  for (const l of other) held.set(l.hash, (held.get(l.hash) ?? 0) + 1);
  return leaves.filter((l) => {
    const n = held.get(l.hash) ?? 0;
    if (n > 0) held.set(l.hash, n - 1);
    return n === 0;
  });
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
  if (stored.columns) return new ColumnCounts(stored).names();
  const counts = new ColumnCounts();
  for await (const ids of idPages(db, projectId, stored)) for (const row of await loadTestcases(db, projectId, ids)) counts.add(row.data);
  return counts.names();
}
