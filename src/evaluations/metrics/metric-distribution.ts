/*
 * How numbers spread, in the reference's span analytics: the widths between paired percentiles (`iqrs`), those
 * widths over the median (`pscs`), and a histogram of equal-width bins.
 */

/** A histogram's shape as a metric spec asks it: bin count, range, and whether the range holds bin edges. */
export interface HistogramOptions {
  /** Bins; by default the square root of the count, rounded up. */
  bins?: number;
  vmin?: number;
  vmax?: number;
  /** True (the default): `vmin` and `vmax` are the outer edges; false: the outer bins' centres. */
  edge?: boolean;
}

const PAIRS: [string, string, string][] = [
  ["25", "p37.5", "p62.5"], ["50", "p25", "p75"], ["75", "p12.5", "p87.5"], ["80", "p10", "p90"],
  ["90", "p05", "p95"], ["95", "p02.5", "p97.5"], ["99", "p00.5", "p99.5"], ["99.9", "p00.05", "p99.95"],
];
// The reference lists the scaled spreads with 99 before 95; its answers keep that order.
const SCALED: [string, string, string][] = [...PAIRS.slice(0, 5), PAIRS[6]!, PAIRS[5]!, PAIRS[7]!];

/** `iqrs` (upper minus lower percentile of each pair) and, when the median is not near zero, `pscs`. */
export function spreads(pcts: Record<string, number>): Record<string, Record<string, number>> {
  const iqrs = Object.fromEntries(PAIRS.map(([k, lo, hi]) => [`iqr${k}`, pcts[hi]! - pcts[lo]!]));
  const { p01, p50, p99 } = pcts as { p01: number; p50: number; p99: number };
  // Scaled by a median close to zero (or across zero) they would say nothing: the reference leaves them out.
  if (p01 * p99 < 0 || Math.abs(p50) < Math.abs(p99) / 100 || Math.abs(p50) < Math.abs(p01) / 100) return { iqrs };
  const scaled = (lo: string, hi: string) => (p50 !== 0 ? (pcts[hi]! - pcts[lo]!) / p50 : 0);
  const pscs = Object.fromEntries(SCALED.map(([k, lo, hi]) => [`psc${k}`, scaled(lo, hi)]));
  return { iqrs, pscs };
}

/**
 * The histogram of numbers sorted ascending, every bin listed with its count, interval and share. A value past
 * `vmax` counts in the last bin; one below `vmin` in none (as PostgreSQL's width_bucket, which the reference uses).
 */
export function histogram(sorted: Float64Array, options: HistogramOptions): { hist?: unknown[] } {
  const n = sorted.length;
  if (n === 0) return {};
  const vmin = options.vmin ?? sorted[0]!;
  const vmax = options.vmax ?? sorted[n - 1]!;
  const edge = options.edge ?? true;
  const bins = n <= 1 || vmin === vmax ? 1 : Math.max(options.bins ?? Math.ceil(Math.sqrt(n)), 1);
  const edgeWidth = (vmax - vmin) / bins;
  const centreWidth = bins > 1 ? (vmax - vmin) / (bins - 1) : 0;
  const width = edge ? edgeWidth : centreWidth;
  const degenerate = vmin === vmax;
  const low = edge ? vmin : vmin - centreWidth / 2;
  const high = degenerate ? vmax + 1e-9 : edge ? vmax : vmax + centreWidth / 2;
  const counts = new Array<number>(bins + 1).fill(0);
  for (const v of sorted) counts[Math.min(widthBucket(v, low, high, bins), bins)]!++;
  const total = counts.slice(1).reduce((a, b) => a + b, 0);
  const hist = [];
  for (let bin = 1; bin <= bins; bin++) {
    const from = bin === 1 ? vmin : vmin + (bin - 1) * width - (edge ? 0 : width / 2);
    const to = bin === bins ? vmax : edge ? vmin + bin * width : vmin + (bin - 1) * width + width / 2;
    const count = counts[bin]!;
    hist.push({ bin, count, interval: [from, to], density: total > 0 ? Math.round((count / total) * 1e5) / 1e5 : 0 });
  }
  return { hist };
}

/** PostgreSQL's width_bucket: 0 below the range, `bins + 1` at or past its end (ranges may run downwards). */
function widthBucket(v: number, low: number, high: number, bins: number): number {
  if (low < high) {
    if (v < low) return 0;
    if (v >= high) return bins + 1;
    return Math.floor((bins * (v - low)) / (high - low)) + 1;
  }
  if (v > low) return 0;
  if (v <= high) return bins + 1;
  return Math.floor((bins * (low - v)) / (low - high)) + 1;
}
