/*
 * Statistics of one metric over many results, in the shapes the reference's analytics return:
 * numbers get count/sum/mean/min/max/range and percentiles, booleans and strings a frequency table.
 */

export type MetricType = "numeric/continuous" | "binary" | "categorical/single" | "json";

const LEVELS: [string, number][] = [
  ["p01", 1], ["p05", 5], ["p10", 10], ["p25", 25], ["p50", 50], ["p75", 75], ["p90", 90], ["p95", 95], ["p99", 99],
];

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
