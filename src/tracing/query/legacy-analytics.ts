/*
 * The reference's legacy analytics (`/tracing/spans/analytics`): spans counted in time buckets, with their summed
 * duration, cost and tokens, in total and for the spans that recorded an exception. Buckets are the reference's
 * (analytics-window.ts), by the time a span was stored. Focus `trace` counts root spans and their cumulative costs
 * and tokens.
 */

import type { Scope } from "../../accounts/scope.ts";
import type { Queryable } from "../../db/database.ts";
import { analyticsWindow, bucketTime } from "./analytics-window.ts";
import { filteringSql, Params } from "./filtering.ts";

/** What one analytics query asks. */
export interface AnalyticsQuery {
  focus: "trace" | "span";
  filtering: unknown;
  oldest?: unknown;
  newest?: unknown;
  interval?: unknown;
}

/** Totals of a bucket. */
export interface Analytics {
  count: number;
  duration: number;
  costs: number;
  tokens: number;
}

/** One bucket: its start, its width in minutes, all its spans and those with an exception. */
export interface Bucket {
  timestamp: string;
  interval: number;
  total: Analytics;
  errors: Analytics;
}

/** The buckets of the window, oldest first, empty ones included. */
export async function legacyAnalytics(db: Queryable, scope: Scope, q: AnalyticsQuery): Promise<Bucket[]> {
  const { oldest, newest, minutes } = analyticsWindow(q);
  const scale = q.focus === "trace" ? "cumulative" : "incremental";
  const params = new Params();
  const from = params.add(new Date(oldest).toISOString(), "timestamptz");
  const where = [
    `project_id = ${params.add(scope.projectId, "uuid")}`, `created_at >= ${from}`,
    `created_at < ${params.add(new Date(newest).toISOString(), "timestamptz")}`,
    filteringSql(q.filtering, params),
    ...(q.focus === "trace" ? ["parent_id IS NULL"] : []),
  ];
  const number = (path: string) => `coalesce(sum((attributes #>> '{ag,metrics,${path}}')::numeric), 0)::float8`;
  const rows = await db.query<Analytics & { at: string; error: boolean }>(
    `SELECT to_char(date_bin(${params.add(`${minutes} minutes`, "interval")}, created_at, ${from}) AT TIME ZONE 'UTC',
         'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS at,
       coalesce(events @> '[{"name": "exception"}]', false) AS error, count(*)::int AS count,
       ${number("duration,cumulative")} AS duration, ${number(`costs,${scale},total`)} AS costs,
       ${number(`tokens,${scale},total`)} AS tokens
     FROM spans WHERE ${where.join(" AND ")} GROUP BY 1, 2`,
    params.values,
  );
  const zero = (): Analytics => ({ count: 0, duration: 0, costs: 0, tokens: 0 });
  const buckets = new Map<string, Bucket>();
  for (let at = oldest; at < newest; at += minutes * 60_000) {
    const timestamp = bucketTime(at);
    buckets.set(timestamp, { timestamp, interval: minutes, total: zero(), errors: zero() });
  }
  for (const row of rows) {
    const bucket = buckets.get(row.at);
    if (!bucket) continue;
    for (const into of row.error ? [bucket.total, bucket.errors] : [bucket.total]) {
      into.count += row.count;
      into.duration += row.duration;
      into.costs += row.costs;
      into.tokens += row.tokens;
    }
  }
  return [...buckets.values()];
}
