/*
 * A span query in the reference's terms: `filtering` (filtering.ts), a window of start times (`oldest`
 * inclusive, `newest` exclusive), newest first, and `limit` spans (focus `span`) or traces (focus `trace`, each
 * trace ranked by its latest matching span). A full page says where the next starts: `newest` and `next` (the
 * last span's or trace's id), as the reference's cursor does.
 */

import type { Scope } from "../../accounts/scope.ts";
import type { Queryable } from "../../db/database.ts";
import { badRequest } from "../../errors.ts";
import { spanIdHex, spanIdToUuid, traceIdHex, traceIdToUuid } from "../span.ts";
import { SPAN_SELECT, storedSpans, type StoredSpan } from "../spans.ts";
import { filteringSql, Params } from "./filtering.ts";
import { timestampOf } from "./timestamps.ts";

/** Most spans (focus span) or traces (focus trace) one query answers. */
export const MAX_QUERY_ITEMS = 1000;

/** `oldest` and `newest` start times (ISO or a count of s, ms, µs or ns), the last page's `next`, `limit`. */
export interface SpanWindow {
  oldest?: unknown;
  newest?: unknown;
  next?: unknown;
  limit?: unknown;
}

/** What one query asks: spans or whole traces, which, and which page. */
export interface SpanQuery {
  focus: "span" | "trace";
  filtering: unknown;
  windowing: SpanWindow;
}

/** The matching spans, and the window of the next page (null when this one was not full). */
export async function querySpans(db: Queryable, scope: Scope, q: SpanQuery): Promise<{
  spans: StoredSpan[];
  next: { newest: string; next: string; limit: number; oldest?: string } | null;
}> {
  const params = new Params();
  const where = [`project_id = ${params.add(scope.projectId, "uuid")}`, filteringSql(q.filtering, params)];
  const oldest = windowTime(q.windowing.oldest, "oldest");
  const newest = windowTime(q.windowing.newest, "newest");
  const cursor = q.windowing.next === undefined || q.windowing.next === null ? null : String(q.windowing.next);
  if (cursor && !newest) throw badRequest("windowing.next goes with windowing.newest (both come from the last page)");
  const limit = Math.min(Math.max(integer(q.windowing.limit) ?? MAX_QUERY_ITEMS, 1), MAX_QUERY_ITEMS);
  if (oldest) where.push(`start_time >= ${params.add(oldest, "timestamptz")}`);
  if (newest) where.push(`start_time ${cursor ? "<=" : "<"} ${params.add(newest, "timestamptz")}`);
  const conditions = where.join(" AND ");

  if (q.focus === "span") {
    let keyset = "";
    if (cursor) {
      const at = params.add(newest, "timestamptz");
      const after = params.add(idOf(spanIdToUuid, cursor), "uuid");
      keyset = ` AND (start_time < ${at} OR (start_time = ${at} AND span_id < ${after}))`;
    }
    // Qualified: a bare start_time would name the output column (its text), which no index holds in order, so
    // every span of the window would be sorted before the first page came out.
    const rows = await db.query(
      `SELECT ${SPAN_SELECT} FROM spans WHERE ${conditions}${keyset}
       ORDER BY spans.start_time DESC, spans.span_id DESC LIMIT ${limit}`,
      params.values,
    );
    const spans = storedSpans(rows);
    const last = spans.length === limit ? spans[spans.length - 1] : undefined;
    return { spans, next: last ? nextWindow(last.start_time, spanIdHex(last.span_id), limit, oldest) : null };
  }

  let keyset = "";
  if (cursor) {
    const at = params.add(newest, "timestamptz");
    const after = params.add(idOf(traceIdToUuid, cursor), "uuid");
    keyset = ` HAVING max(start_time) < ${at} OR (max(start_time) = ${at} AND trace_id < ${after})`;
  }
  const rows = await db.query(
    `WITH page AS (
       SELECT trace_id, max(start_time) AS latest FROM spans WHERE ${conditions}
       GROUP BY trace_id${keyset} ORDER BY latest DESC, trace_id DESC LIMIT ${limit}
     )
     SELECT ${SPAN_SELECT}, ${timeText("page.latest")} AS page_latest FROM spans JOIN page USING (trace_id)
     WHERE spans.project_id = $1 ORDER BY page.latest DESC, trace_id DESC, spans.start_time, span_id`,
    params.values,
  );
  const last = rows[rows.length - 1] as { trace_id: string; page_latest: string } | undefined;
  const next = last && new Set(rows.map((row) => row.trace_id)).size === limit
    ? nextWindow(last.page_latest, traceIdHex(last.trace_id), limit, oldest)
    : null;
  const spans = storedSpans(rows);
  for (const span of spans) delete (span as { page_latest?: string }).page_latest;
  return { spans, next };
}

function nextWindow(newest: string, next: string, limit: number, oldest: string | null) {
  return { newest, next, limit, ...(oldest ? { oldest } : {}) };
}

const timeText = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

function windowTime(value: unknown, name: string): string | null {
  if (value === undefined || value === null) return null;
  const time = timestampOf(value);
  if (time === null) throw badRequest(`windowing.${name} is not a timestamp: ${String(value)}`);
  return time;
}

function integer(value: unknown): number | null {
  if (value === undefined || value === null) return null;
  const n = typeof value === "string" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isInteger(n)) {
    throw badRequest(`windowing.limit must be an integer, got ${String(value)}`);
  }
  return n;
}

function idOf(parse: (id: string) => string, id: string): string {
  try {
    return parse(id);
  } catch {
    throw badRequest(`windowing.next is not an id: ${id}`);
  }
}
