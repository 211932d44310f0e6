import type { Conditions } from "./sql.ts";

/** The reference's keyset pagination: ids are UUIDv7, so id order is creation order. */
export interface Windowing {
  limit?: number | null;
  next?: string | null;
  order?: "ascending" | "descending" | null;
  oldest?: string | null;
  newest?: string | null;
}

export const MAX_PAGE = 1000;

/**
 * Adds the window to `where` and returns the ORDER BY / LIMIT tail. One row more than the page is
 * fetched to know whether another page exists. Because a cursor is the last id seen and new rows get
 * larger ids, a page never repeats or skips a row while rows are being added.
 */
export function applyWindow(where: Conditions, column: string, w: Windowing | null | undefined, createdColumn: string) {
  const descending = w?.order !== "ascending";
  if (w?.next) where.add(`${column} ${descending ? "<" : ">"} ?::uuid`, w.next);
  if (w?.oldest) where.add(`${createdColumn} >= ?::timestamptz`, w.oldest);
  if (w?.newest) where.add(`${createdColumn} <= ?::timestamptz`, w.newest);
  const limit = Math.min(Math.max(w?.limit ?? MAX_PAGE, 1), MAX_PAGE);
  return { tail: `ORDER BY ${column} ${descending ? "DESC" : "ASC"} LIMIT ${limit + 1}`, limit, descending };
}

/** Trims the extra row and says where the next page starts (null when this was the last). */
export function page<T extends { id: string }>(rows: T[], limit: number, w: Windowing | null | undefined) {
  const more = rows.length > limit;
  const items = more ? rows.slice(0, limit) : rows;
  return {
    items,
    windowing: more ? { next: items[items.length - 1].id, limit, order: w?.order ?? "descending" } : null,
  };
}
