/*
 * Statistics of one metric over many results, in the shapes the reference's analytics return:
 * numbers get count/sum/mean/min/max/range and percentiles, booleans and strings a frequency table.
 * `analytics()` gives the reference's full span analytics (more percentiles, spreads, a histogram).
 */

import { histogram, spreads, type HistogramOptions } from "./metric-distribution.ts";

export type MetricType =
  | "numeric/continuous" | "numeric/discrete" | "binary" | "categorical/single" | "categorical/multiple" | "string"
  | "json";

const LEVELS: [string, number][] = [
  ["p01", 1], ["p05", 5], ["p10", 10], ["p25", 25], ["p50", 50], ["p75", 75], ["p90", 90], ["p95", 95], ["p99", 99],
];

/** What a `MetricStats` collected, as JSON: stored for a chunk of a run, merged into the runs that link it. */
export interface MetricPartial {
  type: MetricType;
  count: number;
  numbers?: number[];
  counts?: [string | boolean, number][];
}

/** Collects the values of one metric; `summary()` gives its statistics. */
export class MetricStats {
  type: MetricType;
  readonly #numbers: number[] = [];
  readonly #counts = new Map<string | boolean, number>();
  #count = 0;

  constructor(type: MetricType) {
    this.type = type;
  }

  add(value: unknown): void {
    if (value === null || value === undefined) return;
    if (this.type === "categorical/multiple") {
      // Each label of a list counts, as the reference unnests them.
      for (const label of Array.isArray(value) ? value : []) {
        if (typeof label === "string") this.#tally(label);
      }
      return;
    }
    this.#count++;
    const numeric = this.type === "numeric/continuous" || this.type === "numeric/discrete";
    if (numeric && typeof value === "number" && Number.isFinite(value)) {
      this.#numbers.push(value);
      if (this.type === "numeric/discrete") this.#counts.set(String(value), (this.#counts.get(String(value)) ?? 0) + 1);
    } else if (this.type === "binary" && typeof value === "boolean") this.#tally(value, false);
    else if (this.type === "categorical/single" && typeof value === "string") this.#tally(value, false);
  }

  #tally(value: string | boolean, counted = true): void {
    if (counted) this.#count++;
    this.#counts.set(value, (this.#counts.get(value) ?? 0) + 1);
  }

  partial(): MetricPartial {
    return {
      type: this.type, count: this.#count,
      ...(this.#numbers.length > 0 && { numbers: this.#numbers }),
      ...(this.#counts.size > 0 && { counts: [...this.#counts] }),
    };
  }

  /** Adds what another collected (a type that differs leaves only the count, as a mixed value does). */
  merge(p: MetricPartial): void {
    if (p.type !== this.type) this.type = "json";
    this.#count += p.count;
    for (const n of p.numbers ?? []) this.#numbers.push(n);
    for (const [value, n] of p.counts ?? []) this.#counts.set(value, (this.#counts.get(value) ?? 0) + n);
  }

  /**
   * The reference's span analytics of the values added (each of the spec's type): numbers get the basics, 27
   * percentiles, their spreads and a histogram (continuous) or a frequency table (discrete); labels and booleans a
   * frequency table, most frequent first; strings and objects a count.
   */
  analytics(options: HistogramOptions = {}): Record<string, unknown> {
    const count = { count: this.#count };
    switch (this.type) {
      case "numeric/continuous":
      case "numeric/discrete": {
        const sorted = Float64Array.from(this.#numbers).sort();
        const stats: Record<string, unknown> = { ...count, ...numeric(sorted, ANALYTICS_LEVELS) };
        if (sorted.length > 0) Object.assign(stats, spreads(stats.pcts as Record<string, number>));
        if (this.type === "numeric/continuous") return { ...stats, ...histogram(sorted, options) };
        const freq = [...this.#counts].map(([value, n]) => ({ value: Number(value), count: n }))
          .sort((a, b) => b.count - a.count || a.value - b.value);
        return { ...stats, ...frequencies(freq) };
      }
      case "binary":
        return {
          ...count, ...frequencies([true, false].map((value) => ({ value, count: this.#counts.get(value) ?? 0 }))),
        };
      case "categorical/single":
      case "categorical/multiple": {
        const freq = [...this.#counts].map(([value, n]) => ({ value, count: n }))
          .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
        return { ...count, ...frequencies(freq) };
      }
      default:
        return count;
    }
  }

  summary(): Record<string, unknown> {
    if (this.type === "numeric/continuous" || this.type === "numeric/discrete") {
      return { type: this.type, count: this.#count, ...numeric(Float64Array.from(this.#numbers).sort(), LEVELS) };
    }
    if (this.type === "json" || this.type === "string") return { type: this.type, count: this.#count };
    const values = this.type === "binary" ? [true, false] : [...this.#counts.keys()];
    const freq = values.map((value) => {
      const count = this.#counts.get(value) ?? 0;
      return { value, count, density: this.#count ? round(count / this.#count) : 0 };
    });
    return { type: this.type, count: this.#count, freq, uniq: [...this.#counts.keys()] };
  }
}

/** The metric type a value suggests, or null for a value that carries none. */
export function typeOf(value: unknown): MetricType | null {
  if (typeof value === "number") return "numeric/continuous";
  if (typeof value === "boolean") return "binary";
  if (typeof value === "string") return "categorical/single";
  if (value === null || value === undefined) return null;
  return "json";
}

/** The reference analytics' percentile levels (its keys name them). */
const ANALYTICS_LEVELS: [string, number][] = [
  ["p00.05", 0.05], ["p00.1", 0.1], ["p00.5", 0.5], ["p01", 1], ["p02.5", 2.5], ["p05", 5], ["p10", 10],
  ["p12.5", 12.5], ["p20", 20], ["p25", 25], ["p30", 30], ["p37.5", 37.5], ["p40", 40], ["p50", 50], ["p60", 60],
  ["p62.5", 62.5], ["p70", 70], ["p75", 75], ["p80", 80], ["p87.5", 87.5], ["p90", 90], ["p95", 95], ["p97.5", 97.5],
  ["p99", 99], ["p99.5", 99.5], ["p99.9", 99.9], ["p99.95", 99.95],
];

/** Sum, mean, min, max, range and the percentiles at `levels` of numbers sorted ascending. */
function numeric(sorted: Float64Array, levels: [string, number][]): Record<string, unknown> {
  if (sorted.length === 0) return {};
  let sum = 0;
  for (const v of sorted) sum += v;
  const min = sorted[0];
  const max = sorted[sorted.length - 1];
  const pcts: Record<string, number> = {};
  for (const [key, level] of levels) pcts[key] = percentile(sorted, level);
  return { sum, mean: sum / sorted.length, min, max, range: max - min, pcts };
}

/** A frequency table with each value's share of the count, and the values it holds. */
function frequencies<T>(freq: { value: T; count: number }[]): Record<string, unknown> {
  if (freq.length === 0) return {};
  const total = freq.reduce((n, f) => n + f.count, 0);
  return {
    freq: freq.map((f) => ({ ...f, density: total > 0 ? round(f.count / total) : 0 })),
    uniq: freq.map((f) => f.value),
  };
}

/** Linear interpolation between closest ranks (PostgreSQL's percentile_cont). */
function percentile(sorted: Float64Array, level: number): number {
  const rank = (level / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  return sorted[low] + (sorted[high] - sorted[low]) * (rank - low);
}

const round = (x: number) => Math.round(x * 1e5) / 1e5;

/** The metrics of a set of results: by step key, then by metric path. */
export type StepPartials = Record<string, Record<string, MetricPartial>>;

/** `MetricStats` for every step and path of a set of results. */
export class StepStats {
  readonly #steps = new Map<string, Map<string, MetricStats>>();

  #stats(step: string, path: string, type: MetricType): MetricStats {
    let byPath = this.#steps.get(step);
    if (!byPath) this.#steps.set(step, (byPath = new Map()));
    let s = byPath.get(path);
    if (!s) byPath.set(path, (s = new MetricStats(type)));
    return s;
  }

  add(step: string, path: string, value: unknown): void {
    const type = typeOf(value);
    if (!type) return;
    const s = this.#stats(step, path, type);
    if (s.type !== type) s.type = "json"; // mixed types: only counted
    s.add(value);
  }

  merge(partials: StepPartials): void {
    for (const [step, byPath] of Object.entries(partials)) {
      for (const [path, p] of Object.entries(byPath)) this.#stats(step, path, p.type).merge(p);
    }
  }

  partials(): StepPartials {
    return this.#each((s) => s.partial());
  }

  summary(): Record<string, Record<string, unknown>> {
    return this.#each((s) => s.summary());
  }

  /** `f` of each metric, by step and path. */
  #each<T>(f: (s: MetricStats) => T): Record<string, Record<string, T>> {
    const out: Record<string, Record<string, T>> = {};
    for (const [step, byPath] of this.#steps) {
      out[step] = Object.fromEntries([...byPath].map(([path, s]) => [path, f(s)]));
    }
    return out;
  }
}

/** The statistics of `StepStats.summary()`, from its `partials()`. */
export function summaryOf(partials: StepPartials): Record<string, Record<string, unknown>> {
  const stats = new StepStats();
  stats.merge(partials);
  return stats.summary();
}

/** What a result adds to its run's metrics: its status and error, and what its trace recorded (null without one). */
export interface MetricSource {
  step_key: string;
  status: string;
  error: unknown;
  outputs: unknown;
  latency_ms: number | null;
  usage: { total_tokens?: number } | null;
}

const FAILED = new Set(["failure", "errors", "error"]);
const MAX_DEPTH = 3;

/**
 * Adds a result under the reference's metric keys: its duration, error and tokens, and for an annotation step (or one
 * its run does not name) every leaf of its outputs.
 */
export function addResult(stats: StepStats, r: MetricSource, withOutputs: boolean): void {
  if (r.latency_ms !== null) stats.add(r.step_key, "attributes.ag.metrics.duration.cumulative", r.latency_ms);
  stats.add(r.step_key, "attributes.ag.metrics.errors.cumulative", FAILED.has(r.status) || r.error ? 1 : 0);
  const tokens = r.usage?.total_tokens;
  if (typeof tokens === "number") stats.add(r.step_key, "attributes.ag.metrics.tokens.cumulative.total", tokens);
  if (withOutputs) {
    leaves(r.outputs, "attributes.ag.data.outputs", 0, (path, value) => stats.add(r.step_key, path, value));
  }
}

/** Calls `visit` with each leaf of an output (objects opened a few levels deep; lists and deeper objects: leaves). */
function leaves(value: unknown, path: string, depth: number, visit: (path: string, value: unknown) => void): void {
  if (value !== null && typeof value === "object" && !Array.isArray(value) && depth < MAX_DEPTH) {
    for (const [key, inner] of Object.entries(value)) leaves(inner, `${path}.${key}`, depth + 1, visit);
  } else {
    visit(path, value);
  }
}
