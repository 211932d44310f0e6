/*
 * The sessions and users a project's traces name (`ag.session.id`, `ag.user.id`, lifted onto root spans as
 * `session_id` and `user_id`), as the reference lists them: distinct ids ordered by their first activity (or their
 * last with `realtime`), newest first unless `windowing.order` is `ascending`, a page of `windowing.limit`. A full
 * page answers the window of the next: the same window with its bound moved to the last id's activity.
 */

import type { Scope } from "../../accounts/scope.ts";
import type { Queryable } from "../../db/database.ts";
import { badRequest } from "../../errors.ts";
import { Params } from "./filtering.ts";
import { timestampOf } from "./timestamps.ts";

/** Most ids one page answers. */
export const MAX_GROUP_IDS = 1000;

/** The windowing the sessions and users queries take. */
export interface GroupWindow {
  oldest?: unknown;
  newest?: unknown;
  next?: unknown;
  limit?: unknown;
  order?: unknown;
}

const COLUMNS = { session: "session_id", user: "user_id" } as const;

function time(value: unknown, name: string): string | null {
  if (value === undefined || value === null) return null;
  const at = timestampOf(value);
  if (at === null) throw badRequest(`windowing.${name} is not a timestamp: ${String(value)}`);
  return at;
}

/** A page of the distinct session or user ids, and the window of the next page (null when this one is not full). */
export async function groupIds(
  db: Queryable, scope: Scope, group: "session" | "user", realtime: boolean, windowing: GroupWindow,
): Promise<{ ids: string[]; next: Record<string, unknown> | null }> {
  const column = COLUMNS[group];
  const order = String(windowing.order ?? "descending").toLowerCase();
  if (!["ascending", "descending"].includes(order)) throw badRequest("windowing.order is ascending or descending");
  const ascending = order === "ascending";
  const limitValue = windowing.limit ?? null;
  if (limitValue !== null && (typeof limitValue !== "number" || !Number.isInteger(limitValue) || limitValue < 1)) {
    throw badRequest("windowing.limit must be a positive integer");
  }
  const limit = Math.min((limitValue as number | null) ?? MAX_GROUP_IDS, MAX_GROUP_IDS);
  const oldest = time(windowing.oldest, "oldest");
  const newest = time(windowing.newest, "newest");
  const paging = windowing.next !== undefined && windowing.next !== null;
  const params = new Params();
  const where = [`project_id = ${params.add(scope.projectId, "uuid")}`, `${column} IS NOT NULL`];
  // The reference's bounds: the bound a page moves is exclusive, unless a cursor came with it.
  if (newest) where.push(`start_time ${ascending || paging ? "<=" : "<"} ${params.add(newest, "timestamptz")}`);
  if (oldest) where.push(`start_time ${!ascending || paging ? ">=" : ">"} ${params.add(oldest, "timestamptz")}`);
  const rows = await db.query<{ id: string; active: string }>(
    `SELECT id, to_char(active AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS active FROM (
       SELECT DISTINCT ON (${column}) ${column} AS id, start_time AS active FROM spans WHERE ${where.join(" AND ")}
       ORDER BY ${column}, start_time ${realtime ? "DESC" : "ASC"}
     ) firsts ORDER BY active ${ascending ? "ASC" : "DESC"}, id LIMIT ${limit}`,
    params.values,
  );
  const last = rows[rows.length - 1];
  if (limitValue === null || !last || rows.length < limit) return { ids: rows.map((r) => r.id), next: null };
  const next = ascending
    ? { oldest: last.active, ...(newest ? { newest } : {}) }
    : { newest: last.active, ...(oldest ? { oldest } : {}) };
  return {
    ids: rows.map((r) => r.id),
    next: { ...next, limit, ...(windowing.order ? { order: windowing.order } : {}) },
  };
}
