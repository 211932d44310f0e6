import { unprocessable } from "../http/errors.ts";
import type { CommitInput } from "../versioning/kind.ts";
import type { RevisionRow } from "../versioning/rows.ts";
import { loadIds, type ChunkedIds } from "./chunks.ts";
import { loadTestcases, storeTestcases, type TestcaseInput } from "./testcases.ts";

export interface TestsetDelta {
  rows?: { add?: TestcaseInput[] | null; remove?: string[] | null; replace?: (TestcaseInput & { id: string })[] | null } | null;
  columns?: { add?: string[] | null; remove?: string[] | null; replace?: [string, string][] | Record<string, string> | null } | null;
}

/** The ordered ids a delta produced; its testcases are already stored. */
export class ResolvedIds {
  readonly ids: string[];
  constructor(ids: string[]) {
    this.ids = ids;
  }
}

const LOC = ["body", "testset_revision_commit", "delta"];

/**
 * Applies row and column operations to the base revision's ordered ids. Only added and replaced rows
 * (and, for column operations, every row, since each one changes) are written as new blobs.
 */
export async function applyTestsetDelta(base: RevisionRow | null, delta: TestsetDelta, commit: CommitInput): Promise<ResolvedIds> {
  const { tx, scope, artifactId } = commit;
  let ids = await loadIds(tx, scope.projectId, (base?.data as ChunkedIds | null) ?? null);

  const columns = delta.columns;
  if (columns && (columns.add?.length || columns.remove?.length || (columns.replace && Object.keys(columns.replace).length))) {
    const renames: [string, string][] = Array.isArray(columns.replace) ? columns.replace : Object.entries(columns.replace ?? {});
    const rows = (await loadTestcases(tx, scope.projectId, ids)).map((row) => {
      const data: Record<string, unknown> = { ...row.data };
      for (const [from, to] of renames) {
        if (from in data) {
          data[to] = data[from];
          delete data[from];
        }
      }
      for (const name of columns.remove ?? []) delete data[name];
      for (const name of columns.add ?? []) if (!(name in data)) data[name] = null;
      return { data, flags: row.flags, tags: row.tags, meta: row.meta };
    });
    ids = await storeTestcases(tx, scope, artifactId, rows);
  }

  const rowOps = delta.rows;
  if (rowOps?.replace?.length) {
    const positions = new Map<string, number[]>();
    ids.forEach((id, i) => positions.set(id, [...(positions.get(id) ?? []), i]));
    const missing = rowOps.replace.filter((r) => !positions.has(r.id?.toLowerCase()));
    if (missing.length) {
      throw unprocessable(missing.map((r) => ({ loc: [...LOC, "rows", "replace"], msg: `Testcase ${r.id} is not in the base revision`, type: "value_error" })));
    }
    // An edited row keeps its identity across edits: the old blob's dedup id carries over.
    const old = new Map((await loadTestcases(tx, scope.projectId, rowOps.replace.map((r) => r.id.toLowerCase()))).map((t) => [t.id, t]));
    const replacements = rowOps.replace.map((r) => {
      const data = { ...(r.data ?? {}) };
      data.testcase_dedup_id ??= old.get(r.id.toLowerCase())?.data.testcase_dedup_id;
      return { data, flags: r.flags, tags: r.tags, meta: r.meta };
    });
    const newIds = await storeTestcases(tx, scope, artifactId, replacements);
    rowOps.replace.forEach((r, i) => {
      for (const at of positions.get(r.id.toLowerCase())!) ids[at] = newIds[i];
    });
  }
  if (rowOps?.remove?.length) {
    const removed = new Set(rowOps.remove.map((id) => id.toLowerCase()));
    ids = ids.filter((id) => !removed.has(id));
  }
  if (rowOps?.add?.length) ids = ids.concat(await storeTestcases(tx, scope, artifactId, rowOps.add));
  return new ResolvedIds(ids);
}
