import { unprocessable } from "../errors.ts";
import type { CommitInput } from "../versioning/kind.ts";
import type { RevisionRow } from "../versioning/rows.ts";
import { editLeaves, locateIds } from "./chunk-edit.ts";
import { idPages, loadIds, loadLeaves, storeIds, storeLeaves, type StoredIds } from "./chunk-lists.ts";
import { ColumnCounts } from "./columns.ts";
import type { Queryable } from "../db/database.ts";
import { loadTestcases, storeTestcases, unknownTestcaseIds, type TestcaseInput } from "./testcases.ts";

export interface TestsetDelta {
  rows?: { add?: TestcaseInput[] | null; remove?: string[] | null; replace?: (TestcaseInput & { id: string })[] | null } | null;
  columns?: { add?: string[] | null; remove?: string[] | null; replace?: [string, string][] | Record<string, string> | null } | null;
}

/** Revision data a delta already stored (rows, chunks and chunk lists); the kind commits it as is. */
export class ResolvedIds {
  readonly stored: StoredIds;
  constructor(stored: StoredIds) {
    this.stored = stored;
  }
}

const LOC = ["body", "testset_revision_commit", "delta"];

/**
 * Applies row then column operations to the base revision, so the ids a delta's rows name are those of
 * the base revision (what the client read), and column operations reach the added and replaced rows
 * too. Row operations touch only the chunks that hold the rows they name (and the last chunk for
 * additions), so their cost follows the delta, not the testset. Column operations change every row,
 * so they rewrite every row, page by page.
 */
export async function applyTestsetDelta(base: RevisionRow | null, delta: TestsetDelta, commit: CommitInput): Promise<ResolvedIds> {
  const { tx, scope, artifactId } = commit;
  let stored = await applyRows((base?.data as StoredIds | null) ?? null, delta.rows, commit);
  const columns = delta.columns;
  if (columns && (columns.add?.length || columns.remove?.length || (columns.replace && Object.keys(columns.replace).length))) {
    const counts = new ColumnCounts();
    counts.place(editedOrder(stored, columns));
    const ids = await storeTestcases(tx, scope, artifactId, editedColumns(tx, scope.projectId, stored, columns), counts);
    stored = { ...(await storeIds(tx, scope.projectId, ids)), ...counts.stored() };
  } else if (!stored?.lists) {
    const ids = await storeIds(tx, scope.projectId, await loadIds(tx, scope.projectId, stored));
    stored = { ...ids, columns: stored?.columns, column_order: stored?.column_order };
  }
  return new ResolvedIds(stored);
}

/** The row operations of a delta applied to `stored` (unchanged when there are none). */
async function applyRows(stored: StoredIds | null, rowOps: TestsetDelta["rows"], commit: CommitInput): Promise<StoredIds | null> {
  const { tx, scope, artifactId } = commit;
  const replace = rowOps?.replace ?? [];
  const remove = (rowOps?.remove ?? []).map((id) => id.toLowerCase());
  const add = await addedRows(tx, scope.projectId, artifactId, rowOps?.add ?? []);
  if (!replace.length && !remove.length && !add.length) return stored;

  const leaves = await loadLeaves(tx, scope.projectId, stored);
  const replaced = replace.map((r) => r.id.toLowerCase());
  const dirty = await locateIds(tx, scope.projectId, leaves, [...replaced, ...remove]);
  // An edited row keeps its identity across edits: the old blob's dedup id carries over.
  const old = new Map((await loadTestcases(tx, scope.projectId, replaced)).map((t) => [t.id, t]));
  const replacements = replace.map((r, i) => {
    const data = { ...(r.data ?? {}) };
    data.testcase_dedup_id ??= old.get(replaced[i])?.data.testcase_dedup_id;
    return { data, flags: r.flags, tags: r.tags, meta: r.meta };
  });
  const newIds = await storeTestcases(tx, scope, artifactId, replacements);
  const counts = stored?.columns ? new ColumnCounts(stored) : null;
  const append = add.length ? await storeTestcases(tx, scope, artifactId, add, counts ?? undefined) : [];
  const edited = await editLeaves(tx, scope.projectId, leaves, dirty, {
    replace: new Map(replaced.map((id, i) => [id, newIds[i]])),
    remove: new Set(remove),
    append,
  });
  const missing = replace.filter((_, i) => !edited.met.has(replaced[i]));
  if (missing.length) {
    throw unprocessable(missing.map((r) => ({ loc: [...LOC, "rows", "replace"], msg: `Testcase ${r.id} is not in the base revision`, type: "value_error" })));
  }
  if (counts) {
    replacements.forEach((r, i) => counts.add(r.data, edited.met.get(replaced[i]) ?? 0));
    const gone = [...edited.met.keys()];
    for (const row of await loadTestcases(tx, scope.projectId, gone)) counts.add(row.data, -edited.met.get(row.id)!);
  }
  return { ...(await storeLeaves(tx, scope.projectId, edited.leaves)), ...(counts ? counts.stored() : {}) };
}

/**
 * Added rows that name an id must name a testcase of this testset (else 422 naming it); one sent
 * without data adds that testcase as it is stored.
 */
async function addedRows(
  tx: Queryable, projectId: string, testsetId: string, add: TestcaseInput[],
): Promise<TestcaseInput[]> {
  const named = add.filter((r) => r.id).map((r) => r.id!.toLowerCase());
  if (!named.length) return add;
  const unknown = await unknownTestcaseIds(tx, projectId, testsetId, named);
  if (unknown.length) {
    throw unprocessable(unknown.slice(0, 20).map((id) => ({
      loc: [...LOC, "rows", "add"], msg: `Testcase ${id} is not a testcase of this testset`, type: "value_error",
    })));
  }
  const stored = new Map((await loadTestcases(tx, projectId, named)).map((t) => [t.id, t]));
  return add.map((r) => {
    if (!r.id || r.data) return r;
    const t = stored.get(r.id.toLowerCase())!;
    return { id: t.id, data: t.data, flags: r.flags ?? t.flags, tags: r.tags ?? t.tags, meta: r.meta ?? t.meta };
  });
}

const renamesOf = (columns: NonNullable<TestsetDelta["columns"]>): [string, string][] =>
  Array.isArray(columns.replace) ? columns.replace : Object.entries(columns.replace ?? {});

/**
 * The base revision's column order with the column operations applied: a renamed column keeps its place, a
 * removed one leaves it, an added one goes last. Columns of a base without a known order follow as rows show them.
 */
function editedOrder(stored: StoredIds | null, columns: NonNullable<TestsetDelta["columns"]>): string[] {
  const renames = new Map(renamesOf(columns));
  const removed = new Set(columns.remove ?? []);
  const order = stored?.columns ? new ColumnCounts(stored).names() : [];
  const kept = order.map((name) => renames.get(name) ?? name).filter((name) => !removed.has(name));
  return [...kept, ...(columns.add ?? [])];
}

/** Every row of the revision with the column operations applied, read and yielded a page at a time. */
async function* editedColumns(db: CommitInput["tx"], projectId: string, stored: StoredIds | null, columns: NonNullable<TestsetDelta["columns"]>): AsyncGenerator<TestcaseInput> {
  const renames = renamesOf(columns);
  for await (const ids of idPages(db, projectId, stored)) {
    for (const row of await loadTestcases(db, projectId, ids)) {
      const data: Record<string, unknown> = { ...row.data };
      for (const [from, to] of renames) {
        if (from in data) {
          data[to] = data[from];
          delete data[from];
        }
      }
      for (const name of columns.remove ?? []) delete data[name];
      for (const name of columns.add ?? []) if (!(name in data)) data[name] = null;
      yield { data, flags: row.flags, tags: row.tags, meta: row.meta };
    }
  }
}
