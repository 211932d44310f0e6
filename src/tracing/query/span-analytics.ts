/*
 * The reference's span analytics (`/tracing/analytics/query`): for each time bucket of the window
 * (analytics-window.ts, by the time a span was stored), the statistics each metric spec asks of the values at its
 * path in the root spans that match `filtering`, optionally a sample of their traces (`rate`). Only buckets, and
 * metrics, that have values are answered. Values are read a page at a time through a cursor and summed up by the
 * statistics the evaluation metrics use (metric-stats.ts), so memory holds the numbers, not the rows.
 */

import type { Scope } from "../../accounts/scope.ts";
import type { Database } from "../../db/database.ts";
import { badRequest } from "../../errors.ts";
import { MetricStats, type MetricType } from "../../evaluations/metrics/metric-stats.ts";
import { analyticsWindow } from "./analytics-window.ts";
import { filteringSql, Params } from "./filtering.ts";
import type { MetricSpec } from "./metric-specs.ts";

/** What one analytics query asks. */
export interface SpanAnalyticsQuery {
  filtering: unknown;
  oldest?: unknown;
  newest?: unknown;
  interval?: unknown;
  /** The share of traces sampled, 0 to 1 (by their id, so the same traces each time). */
  rate?: unknown;
  specs: MetricSpec[];
  /** Most root spans one query reads; past it the query is refused (400). */
  maxSpans: number;
}

/** One bucket: its start, its width in minutes, and the statistics by metric path. */
export interface MetricsBucket {
  timestamp: string;
  interval: number;
  metrics: Record<string, Record<string, unknown>>;
}

const PAGE_ROWS = 5000;
const JS_TYPES: Partial<Record<MetricType, (v: unknown) => boolean>> = {
  "numeric/continuous": (v) => typeof v === "number",
  "numeric/discrete": (v) => typeof v === "number",
  binary: (v) => typeof v === "boolean",
  "categorical/single": (v) => typeof v === "string",
  "categorical/multiple": Array.isArray,
  string: (v) => typeof v === "string",
  json: (v) => typeof v === "object" && v !== null && !Array.isArray(v),
};

/** The share asked as a whole percent (the reference's rounding), or null for every trace. */
function samplePercent(rate: unknown): number | null {
  if (rate === undefined || rate === null) return null;
  if (typeof rate !== "number" || !Number.isFinite(rate)) throw badRequest("windowing.rate is a number from 0 to 1");
  return Math.max(0, Math.min(Math.trunc(rate * 100), 100));
}

/** The buckets of the window that have values, oldest first. */
export async function spanAnalytics(db: Database, scope: Scope, q: SpanAnalyticsQuery): Promise<MetricsBucket[]> {
  const { oldest, newest, minutes } = analyticsWindow(q);
  const percent = samplePercent(q.rate);
  const specs = q.specs.filter((s) => s.type in JS_TYPES);
  if (percent === 0 || specs.length === 0) return [];
  const params = new Params();
  const from = params.add(new Date(oldest).toISOString(), "timestamptz");
  const paths = [...new Set(specs.map((s) => pathOf(s)))];
  const columns = paths.map((path, i) => `attributes #> ${params.add(path.split("."), "text[]")} AS m${i}`);
  const where = [
    `project_id = ${params.add(scope.projectId, "uuid")}`, "parent_id IS NULL", `created_at >= ${from}`,
    `created_at < ${params.add(new Date(newest).toISOString(), "timestamptz")}`, filteringSql(q.filtering, params),
  ];
  // The reference's sample: the first 32 bits of the trace id, modulo 100.
  if (percent !== null && percent < 100) {
    where.push(`('x' || left(trace_id::text, 8))::bit(32)::bigint % 100 < ${percent}`);
  }
  const bucket = `floor(extract(epoch FROM created_at - ${from}) / ${minutes * 60})::int`;
  const byBucket = new Map<number, MetricStats[]>();
  const column = specs.map((s) => `m${paths.indexOf(pathOf(s))}`);

  await db.transaction(async (tx) => {
    await tx.query(
      `DECLARE span_analytics NO SCROLL CURSOR FOR
       SELECT ${bucket} AS bucket, ${columns.join(", ")} FROM spans WHERE ${where.join(" AND ")}`,
      params.values,
    );
    let read = 0;
    for (;;) {
      const rows = await tx.query<Record<string, unknown> & { bucket: number }>(
        `FETCH ${PAGE_ROWS} FROM span_analytics`,
      );
      read += rows.length;
      if (read > q.maxSpans) {
        throw badRequest(`more than ${q.maxSpans} root spans in the window (TESSERA_ANALYTICS_MAX_SPANS): ` +
          "narrow windowing.oldest/newest, filter, or sample traces with windowing.rate");
      }
      for (const row of rows) {
        let stats = byBucket.get(row.bucket);
        if (!stats) byBucket.set(row.bucket, (stats = specs.map((s) => new MetricStats(s.type as MetricType))));
        specs.forEach((s, i) => {
          const value = row[column[i]!];
          if (JS_TYPES[s.type as MetricType]!(value)) stats[i]!.add(value);
        });
      }
      if (rows.length < PAGE_ROWS) break;
    }
    await tx.query("CLOSE span_analytics");
  });

  return [...byBucket].sort(([a], [b]) => a - b).flatMap(([index, stats]) => {
    const metrics: Record<string, Record<string, unknown>> = {};
    specs.forEach((s, i) => {
      const values = stats[i]!.analytics(s);
      if ((values.count as number) === 0) return;
      const key = `attributes.${pathOf(s)}`;
      metrics[key] = { type: metrics[key]?.type ?? s.type, ...metrics[key], ...values };
    });
    if (Object.keys(metrics).length === 0) return [];
    return [{ timestamp: timeOf(oldest + index * minutes * 60_000), interval: minutes, metrics }];
  });
}

/** A bucket's start in UTC, its milliseconds only when it has some. */
const timeOf = (ms: number) => new Date(ms).toISOString().replace(/\.000Z$/, "Z");

/** A spec's path inside `attributes`. */
const pathOf = (s: MetricSpec) => s.path.replace(/^attributes\./, "");
