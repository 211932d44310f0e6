/*
 * Statistics of one metric over many results, in the shapes the reference's analytics return:
 * numbers get count/sum/mean/min/max/range and percentiles, booleans and strings a frequency table.
 */

export type MetricType = "numeric/continuous" | "binary" | "categorical/single" | "json";

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
    this.#count++;
    if (this.type === "numeric/continuous" && typeof value === "number" && Number.isFinite(value)) this.#numbers.push(value);
    else if (this.type === "binary" && typeof value === "boolean") this.#counts.set(value, (this.#counts.get(value) ?? 0) + 1);
    else if (this.type === "categorical/single" && typeof value === "string") {
      this.#counts.set(value, (this.#counts.get(value) ?? 0) + 1);
    }
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

  summary(): Record<string, unknown> {
    if (this.type === "numeric/continuous") return { type: this.type, count: this.#count, ...numeric(this.#numbers) };
    if (this.type === "json") return { type: this.type, count: this.#count };
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

function numeric(values: number[]): Record<string, unknown> {
  if (values.length === 0) return {};
  const sorted = Float64Array.from(values).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  const min = sorted[0];
  const max = sorted[sorted.length - 1];
  const pcts: Record<string, number> = {};
  for (const [key, level] of LEVELS) pcts[key] = percentile(sorted, level);
  return { sum, mean: sum / sorted.length, min, max, range: max - min, pcts };
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
