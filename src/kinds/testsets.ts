import { unprocessable } from "../errors.ts";
import type { CommitInput, Kind, PreparedData, ReadContext } from "../versioning/kind.ts";
import type { RevisionRow } from "../versioning/rows.ts";
import { idPages, IdListWriter, storeIds, type StoredIds } from "../testsets/chunk-lists.ts";
import { ColumnCounts } from "../testsets/columns.ts";
import { applyTestsetDelta, ResolvedIds, type TestsetDelta } from "../testsets/delta.ts";
import { diffTestsetRevisions } from "../testsets/diff.ts";
import { inlineLimit } from "../testsets/limits.ts";
import { positionCursor } from "../testsets/position-cursor.ts";
import { loadTestcases, storePackedTestcases, testcaseRecord, unknownTestcaseIds, type TestcaseInput } from "../testsets/testcases.ts";

/** What clients commit: rows to store, or the ids of testcases this testset already holds. */
export interface TestsetData {
  testcases?: TestcaseInput[] | null;
  testcase_ids?: string[] | null;
}

/** Writes the rows as blobs and the ordered id list as chunks; the revision stores `{count, lists}`. */
async function prepare(commit: CommitInput): Promise<PreparedData> {
  const { tx, scope, artifactId } = commit;
  if (commit.data instanceof ResolvedIds) return { data: commit.data.stored };
  const rows = ((commit.data ?? {}) as TestsetData).testcases;
  if (rows) {
    const columns = new ColumnCounts();
    const list = new IdListWriter(scope.projectId);
    await storePackedTestcases(tx, scope, artifactId, rows, columns, list);
    return { data: { ...(await list.finish(tx)), ...columns.stored() } };
  }
  // Existing rows are not read back: the revision does not know its columns (a diff then scans).
  const ids = ((commit.data as TestsetData | null)?.testcase_ids ?? []).map((id) => id.toLowerCase());
  const unknown = await unknownTestcaseIds(tx, scope.projectId, artifactId, ids);
  if (unknown.length) {
    throw unprocessable(unknown.slice(0, 20).map((id) => ({ loc: ["body", "testset_revision", "data", "testcase_ids"], msg: `Testcase ${id} is not a testcase of this testset`, type: "value_error" })));
  }
  return { data: await storeIds(tx, scope.projectId, ids) };
}

/**
 * `include_testcase_ids` and `include_testcases` both default to true. Ids and testcases are each
 * inlined up to `TESSERA_TESTSET_INLINE_LIMIT` rows; past it the response carries the first rows,
 * `testcase_count` and `testcases_windowing` to page on with `POST /testcases/query` (or download the
 * file). Its `next` is a position cursor (see position-cursor.ts) just past the inlined rows.
 */
async function present(revision: RevisionRow, read: ReadContext) {
  const withIds = read.options.include_testcase_ids !== false;
  const withTestcases = read.options.include_testcases !== false;
  if (!withIds && !withTestcases) return {};
  const stored = revision.data as StoredIds | null;
  const out: Record<string, unknown> = {};
  const count = stored?.count ?? 0;
  const limit = inlineLimit();
  // One read of the id chunks serves both lists.
  const ids: string[] = [];
  const testcases = [];
  for await (const page of idPages(read.db, read.scope.projectId, stored, 0, limit)) {
    if (withIds) for (const id of page) ids.push(id);
    if (withTestcases) {
      for (const row of await loadTestcases(read.db, read.scope.projectId, page)) testcases.push(testcaseRecord(row));
    }
  }
  if (withIds) out.testcase_ids = ids;
  if (withTestcases) out.testcases = testcases;
  if (count > limit) {
    out.testcase_count = count;
    out.testcases_windowing = { next: positionCursor(limit), limit, testset_revision_ref: { id: revision.id } };
  }
  return out;
}

/**
 * `columns`: the data column names in order (the uploaded file's, then of creation), when the revision keeps
 * them. Beside `data`, whose keys the reference's clients check strictly; the revision record tolerates it.
 */
function recordFields(revision: RevisionRow) {
  const stored = revision.data as StoredIds | null;
  return stored?.columns ? { columns: new ColumnCounts(stored).names() } : {};
}

/** A testset is an ordered list of immutable testcases; its revisions share them and their id chunks. */
export const testsets: Kind = {
  name: "testset",
  plural: "testsets",
  family: "testset",
  aliases: [],
  flags: {},
  prepare,
  present,
  recordFields,
  applyDelta: (base, delta, commit) => applyTestsetDelta(base, delta as TestsetDelta, commit),
  diff: (base, target, read) => diffTestsetRevisions(read, base, target),
};
