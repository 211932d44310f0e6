/**
 * A testset's rows for the playground, read through `POST /testcases/query` with `windowing.offset`: a page from
 * any row number, or a search that reads the rows a thousand at a time in the browser and stops at the first
 * matches (the server has no text search over rows).
 */
import { api } from "../api.ts";

/** A row and its place in the testset's latest revision (0-based). */
export interface TestsetRow {
  index: number;
  id: string;
  data: Record<string, unknown>;
}

/** Rows one page of the picker shows. */
export const PAGE_ROWS = 10;
/** Rows one search reads before it stops and offers to go on. */
export const SEARCH_ROWS = 10_000;
const SEARCH_PAGE = 1000;
const MATCHES = PAGE_ROWS;

interface Page {
  rows: TestsetRow[];
  total: number;
}

/** Rows `from`… (at most `limit`) of the testset's latest revision, and the revision's row count. */
export async function rowsFrom(
  testsetId: string, from: number, limit = PAGE_ROWS, signal?: AbortSignal,
): Promise<Page> {
  const answer = await api("POST", "/testcases/query", {
    testset_ref: { id: testsetId }, windowing: { offset: from, limit },
  }, { signal });
  const rows = (answer.testcases ?? []) as { id: string; data: Record<string, unknown> | null }[];
  return {
    rows: rows.map((t, i) => ({ index: from + i, id: t.id, data: t.data ?? {} })),
    total: answer.testcase_count ?? 0,
  };
}

/** The text a row is searched in and shown as: its values, the server's own bookkeeping (`testcase_…`) left out. */
export function rowText(data: Record<string, unknown>): string {
  return Object.entries(data).filter(([k]) => !k.startsWith("testcase_"))
    .map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`).join(" · ");
}

/**
 * The first rows from `from` on whose text contains `query` (any case), reading at most SEARCH_ROWS rows;
 * `next` is where to go on from, null when the testset's end was reached.
 */
export async function searchRows(
  testsetId: string, query: string, from: number, signal?: AbortSignal,
): Promise<{ rows: TestsetRow[]; next: number | null; total: number }> {
  const needle = query.toLowerCase();
  const found: TestsetRow[] = [];
  let at = from;
  let total = Infinity;
  while (at < from + SEARCH_ROWS && at < total) {
    const page = await rowsFrom(testsetId, at, SEARCH_PAGE, signal);
    total = page.total;
    for (const row of page.rows) {
      at = row.index + 1;
      if (rowText(row.data).toLowerCase().includes(needle)) found.push(row);
      if (found.length === MATCHES) return { rows: found, next: at < total ? at : null, total };
    }
    if (page.rows.length === 0) break;
  }
  return { rows: found, next: at < total ? at : null, total: Number.isFinite(total) ? total : 0 };
}
