import type { Scope } from "../accounts/project-defaults.ts";
import type { Queryable } from "../db/database.ts";
import { json } from "../db/database.ts";
import { testsets } from "../kinds/testsets.ts";
import type { Reference } from "../versioning/filters.ts";
import { retrieveRevision } from "../versioning/resolve.ts";
import { Conditions } from "../versioning/sql.ts";
import { MAX_PAGE } from "../versioning/windowing.ts";
import { loadIds, type StoredIds } from "./chunk-lists.ts";
import { loadTestcases, testcaseRecord, type TestcaseRow } from "./testcases.ts";

export interface TestcaseQuery {
  testcaseIds?: string[] | null;
  testsetId?: string | null;
  testsetRef?: Reference | null;
  variantRef?: Reference | null;
  revisionRef?: Reference | null;
  limit?: number | null;
  next?: string | null;
}

/**
 * Testcases by id and/or testset. Scoped by a revision reference, the page walks the revision's
 * ordered ids (the cursor is the last id seen); otherwise it walks testcases in id order.
 */
export async function queryTestcases(db: Queryable, scope: Scope, q: TestcaseQuery) {
  const limit = Math.min(Math.max(q.limit ?? MAX_PAGE, 1), MAX_PAGE);
  const wanted = q.testcaseIds?.length ? new Set(q.testcaseIds.map((id) => id.toLowerCase())) : null;
  let rows: TestcaseRow[];
  let more: boolean;
  if (q.revisionRef || q.variantRef || q.testsetRef) {
    const { revision } = await retrieveRevision(db, scope, testsets, { artifact: q.testsetRef, variant: q.variantRef, revision: q.revisionRef });
    let ids = await loadIds(db, scope.projectId, revision.data as StoredIds | null);
    if (wanted) ids = ids.filter((id) => wanted.has(id));
    const from = q.next ? ids.indexOf(q.next.toLowerCase()) + 1 : 0;
    more = ids.length > from + limit;
    rows = await loadTestcases(db, scope.projectId, ids.slice(from, from + limit));
  } else {
    const where = new Conditions([scope.projectId]).add("project_id = $1");
    if (q.testsetId) where.add("testset_id = ?::uuid", q.testsetId);
    if (wanted) where.add("id IN (SELECT x::uuid FROM jsonb_array_elements_text(?::jsonb) x)", json([...wanted]));
    if (q.next) where.add("id > ?::uuid", q.next);
    rows = await db.query<TestcaseRow>(`SELECT * FROM testcases WHERE ${where} ORDER BY id LIMIT ${limit + 1}`, where.params);
    more = rows.length > limit;
    rows = rows.slice(0, limit);
  }
  return {
    count: rows.length,
    testcases: rows.map(testcaseRecord),
    windowing: more && rows.length ? { next: rows[rows.length - 1].id, limit } : null,
  };
}
