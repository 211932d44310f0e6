/*
 * The reference's analytics window: `oldest` to `newest` (default: the 30 days before the start of tomorrow, UTC;
 * an `oldest` not before `newest` is ignored), cut into buckets of `interval` minutes, widened to a coarser
 * suggested width when the window would hold more than 1,024 of them, or into one bucket when no interval is asked.
 */

import { badRequest } from "../../errors.ts";
import { timestampOf } from "./timestamps.ts";

const DAY_MS = 86_400_000;
const DEFAULT_WINDOW_MS = 30 * DAY_MS;
/** Most buckets one analytics answer holds (a finer interval is widened). */
export const MAX_BUCKETS = 1024;
const SUGGESTED_MINUTES = [1, 5, 15, 30, 60, 180, 360, 720, 1440, 4320, 10080, 20160, 43200];

/** The window's bounds (ms since the epoch) and its buckets' width in minutes. */
export interface AnalyticsWindow {
  oldest: number;
  newest: number;
  minutes: number;
}

function bound(value: unknown, name: string): number | null {
  if (value === undefined || value === null) return null;
  const at = timestampOf(value);
  if (at === null) throw badRequest(`windowing.${name} is not a timestamp: ${String(value)}`);
  return Date.parse(at);
}

/** The bucket width in minutes: the reference's stride for the window and the interval asked. */
function strideMinutes(rangeMinutes: number, interval: number | null): number {
  if (interval === null) return Math.max(1, Math.ceil(rangeMinutes));
  const wanted = Math.max(1, Math.trunc(interval));
  if (Math.floor(rangeMinutes / wanted) <= MAX_BUCKETS) return wanted;
  return SUGGESTED_MINUTES.find((m) => Math.floor(rangeMinutes / m) <= MAX_BUCKETS) ?? SUGGESTED_MINUTES.at(-1)!;
}

/** The window asked: bounds as timestamps (ISO or counts of s, ms, µs, ns) and the interval in whole minutes. */
export function analyticsWindow(q: { oldest?: unknown; newest?: unknown; interval?: unknown }): AnalyticsWindow {
  const tomorrow = new Date();
  tomorrow.setUTCHours(24, 0, 0, 0);
  const newest = bound(q.newest, "newest") ?? tomorrow.getTime();
  const asked = bound(q.oldest, "oldest");
  const oldest = asked !== null && asked < newest ? asked : newest - DEFAULT_WINDOW_MS;
  if (q.interval !== undefined && q.interval !== null && !Number.isInteger(q.interval)) {
    throw badRequest("windowing.interval is a whole number of minutes");
  }
  const minutes = strideMinutes((newest - oldest) / 60_000, (q.interval as number | null | undefined) ?? null);
  return { oldest, newest, minutes };
}

/** A bucket's start as the reference writes it (UTC, whole seconds). */
export const bucketTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
