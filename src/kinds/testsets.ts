import { unprocessable } from "../http/errors.ts";
import type { CommitInput, Kind, PreparedData, ReadContext } from "../versioning/kind.ts";
import type { RevisionRow } from "../versioning/rows.ts";
import { loadIds, storeIds, type ChunkedIds } from "../testsets/chunks.ts";
import { applyTestsetDelta, ResolvedIds, type TestsetDelta } from "../testsets/delta.ts";
import { TestcaseStream } from "../testsets/import.ts";
import { loadTestcases, storeTestcases, testcaseRecord, unknownTestcaseIds, type TestcaseInput } from "../testsets/testcases.ts";

/** What clients commit: rows to store, or the ids of testcases this testset already holds. */
export interface TestsetData {
  testcases?: TestcaseInput[] | null;
  testcase_ids?: string[] | null;
}

/** Writes the rows as blobs and the ordered id list as chunks; the revision stores `{chunks, count}`. */
async function prepare(commit: CommitInput): Promise<PreparedData> {
  const { tx, scope, artifactId } = commit;
  let ids: string[];
  if (commit.data instanceof ResolvedIds) ids = commit.data.ids;
  else if (commit.data instanceof TestcaseStream) ids = await storeTestcases(tx, scope, artifactId, commit.data.rows);
  else {
    const data = (commit.data ?? {}) as TestsetData;
    if (data.testcases) ids = await storeTestcases(tx, scope, artifactId, data.testcases);
    else {
      ids = (data.testcase_ids ?? []).map((id) => id.toLowerCase());
      const unknown = await unknownTestcaseIds(tx, scope.projectId, artifactId, ids);
      if (unknown.length) {
        throw unprocessable(unknown.slice(0, 20).map((id) => ({ loc: ["body", "testset_revision", "data", "testcase_ids"], msg: `Testcase ${id} is not a testcase of this testset`, type: "value_error" })));
      }
    }
  }
  return { data: await storeIds(tx, scope.projectId, ids) };
}

/** `include_testcase_ids` and `include_testcases` both default to true. */
async function present(revision: RevisionRow, read: ReadContext) {
  const withIds = read.options.include_testcase_ids !== false;
  const withTestcases = read.options.include_testcases !== false;
  if (!withIds && !withTestcases) return {};
  const ids = await loadIds(read.db, read.scope.projectId, revision.data as ChunkedIds | null);
  return {
    ...(withIds ? { testcase_ids: ids } : {}),
    ...(withTestcases ? { testcases: (await loadTestcases(read.db, read.scope.projectId, ids)).map(testcaseRecord) } : {}),
  };
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
  applyDelta: (base, delta, commit) => applyTestsetDelta(base, delta as TestsetDelta, commit),
};
