import type { Scope } from "../accounts/scope.ts";
import type { Queryable } from "../db/database.ts";
import { badRequest } from "../errors.ts";
import { json } from "../db/database.ts";
import { testsets } from "../kinds/testsets.ts";
import type { Reference } from "../versioning/filters.ts";
import { retrieveRevision } from "../versioning/resolve.ts";
import { Conditions } from "../versioning/sql.ts";
import { MAX_PAGE } from "../versioning/windowing.ts";
import { idPages, type StoredIds } from "./chunk-lists.ts";
import { cursorPosition, positionCursor } from "./position-cursor.ts";
import { loadTestcases, restoredTestcase, testcaseRecord, type TestcaseRow } from "./testcases.ts";

export interface TestcaseQuery {
  testcaseIds?: string[] | null;
  testsetId?: string | null;
  testsetRef?: Reference | null;
  variantRef?: Reference | null;
  revisionRef?: Reference | null;
  limit?: number | null;
  next?: string | null;
  /** With a revision reference: the row position to start at (instead of `next`). */
  offset?: number | null;
}

/**
 * Where a revision-ordered page starts: a position cursor names it; a last-id cursor (what this
 * endpoint answered before positions) is found by streaming the list up to its first occurrence, and
 * one not in the list starts past the end (an empty last page, not a loop back to the start).
 */
async function startPosition(db: Queryable, projectId: string, stored: StoredIds | null, next: string): Promise<number> {
  const position = cursorPosition(next);
  if (position !== null) return position;
  let seen = 0;
  for await (const ids of idPages(db, projectId, stored)) {
    const at = ids.indexOf(next);
    if (at >= 0) return seen + at + 1;
    seen += ids.length;
  }
  return seen;
}

/**
 * Up to `limit` ids of the revision from `from` (those in `wanted`, when given), reading only the
 * chunks that cover them, and the position the next page starts at (null when none is left).
 */
async function revisionPage(db: Queryable, projectId: string, stored: StoredIds | null, from: number, limit: number, wanted: Set<string> | null) {
  const ids: string[] = [];
  let position = from;
  if (!wanted) {
    // One id more than the page says whether another page exists.
    for await (const page of idPages(db, projectId, stored, from, limit + 1)) ids.push(...page);
    return ids.length > limit ? { ids: ids.slice(0, limit), next: from + limit } : { ids, next: null };
  }
  // Filtered by ids, the page ends after the `limit`-th match, and exists if another match follows.
  let end: number | null = null;
  for await (const page of idPages(db, projectId, stored, from)) {
    for (const id of page) {
      if (wanted.has(id)) {
        if (ids.length === limit) return { ids, next: end };
        ids.push(id);
        end = position + 1;
      }
      position++;
    }
  }
  return { ids, next: null };
}

/**
 * Testcases by id and/or testset. Scoped by a revision reference, the page walks the revision's
 * ordered ids by position (the cursor is a position cursor, see position-cursor.ts); otherwise it
 * walks testcases in id order (the cursor is the last id seen).
 */
const names = (ref: Reference | null | undefined) => ref != null && (ref.id != null || ref.slug != null || ref.version != null);

/** A page of testcases; without any id, testset or testset reference filter, a 400 (never the whole project). */
export async function queryTestcases(db: Queryable, scope: Scope, q: TestcaseQuery) {
  if (!q.testcaseIds?.length && !q.testsetId && !names(q.testsetRef) && !names(q.variantRef) && !names(q.revisionRef)) {
    throw badRequest("At least one filter is required: testcase_ids, testset_id, testset_ref/testset_variant_ref/testset_revision_ref.");
  }
  const limit = Math.min(Math.max(q.limit ?? MAX_PAGE, 1), MAX_PAGE);
  const wanted = q.testcaseIds?.length ? new Set(q.testcaseIds.map((id) => id.toLowerCase())) : null;
  let rows: TestcaseRow[];
  let more: boolean;
  let next: string | null = null;
  let total: number | undefined;
  if (q.offset != null && q.next) throw badRequest("windowing.offset and windowing.next cannot be used together.");
  if (q.offset != null && !(q.revisionRef || q.variantRef || q.testsetRef)) {
    throw badRequest("windowing.offset needs a testset_ref, testset_variant_ref or testset_revision_ref (rows are positioned in a revision).");
  }
  if (q.revisionRef || q.variantRef || q.testsetRef) {
    const { revision } = await retrieveRevision(db, scope, testsets, { artifact: q.testsetRef, variant: q.variantRef, revision: q.revisionRef });
    const stored = revision.data as StoredIds | null;
    const from = q.offset ?? (q.next ? await startPosition(db, scope.projectId, stored, q.next.toLowerCase()) : 0);
    total = stored?.count ?? 0;
    const page = await revisionPage(db, scope.projectId, stored, from, limit, wanted);
    rows = await loadTestcases(db, scope.projectId, page.ids);
    more = page.next !== null;
    next = page.next === null ? null : positionCursor(page.next);
  } else {
    const where = new Conditions([scope.projectId]).add("project_id = $1");
    if (q.testsetId) where.add("testset_id = ?::uuid", q.testsetId);
    if (wanted) where.add("id IN (SELECT x::uuid FROM jsonb_array_elements_text(?::jsonb) x)", json([...wanted]));
    if (q.next) where.add("id > ?::uuid", q.next);
    rows = await db.query<TestcaseRow>(`SELECT * FROM testcases WHERE ${where} ORDER BY id LIMIT ${limit + 1}`, where.params);
    more = rows.length > limit;
    rows = rows.slice(0, limit).map(restoredTestcase);
    next = more && rows.length ? rows[rows.length - 1].id : null;
  }
  return {
    count: rows.length,
    testcases: rows.map(testcaseRecord),
    windowing: more && next ? { next, limit } : null,
    ...(total === undefined ? {} : { testcase_count: total }),
  };
}
