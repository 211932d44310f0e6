/*
 * The metric specs of a span analytics query, as the reference takes them: `{type, path, bins, vmin, vmax, edge}`,
 * a list or its JSON text. A path names an attribute (`attributes.ag.metrics.duration.cumulative`, the
 * `attributes.` prefix optional); no specs means the reference's defaults.
 */

import { unprocessable } from "../../errors.ts";
import type { MetricType } from "../../evaluations/metrics/metric-stats.ts";
import { isObject } from "../ag-attributes.ts";

/** What one spec asks: the statistics of `type` over the values at `path`, and a histogram's shape. */
export interface MetricSpec {
  type: MetricType | "none" | "*";
  path: string;
  bins?: number;
  vmin?: number;
  vmax?: number;
  edge?: boolean;
}

/** Most specs one query takes. */
export const MAX_METRIC_SPECS = 100;
/** Most histogram bins one spec asks. */
export const MAX_HISTOGRAM_BINS = 1000;

const TYPES = [
  "numeric/continuous", "numeric/discrete", "binary", "categorical/single", "categorical/multiple", "string", "json",
  "none", "*",
];

/** The reference's specs when a query names none: durations, errors, costs and tokens, and the types of traces. */
export const DEFAULT_METRIC_SPECS: MetricSpec[] = [
  { type: "numeric/continuous", path: "attributes.ag.metrics.duration.cumulative" },
  { type: "numeric/continuous", path: "attributes.ag.metrics.errors.cumulative" },
  { type: "numeric/continuous", path: "attributes.ag.metrics.costs.cumulative.total" },
  { type: "numeric/continuous", path: "attributes.ag.metrics.tokens.cumulative.total" },
  { type: "categorical/single", path: "attributes.ag.type.trace" },
  { type: "categorical/single", path: "attributes.ag.type.span" },
];

const invalid = (loc: (string | number)[], msg: string, type: string) =>
  unprocessable([{ loc: ["body", "specs", ...loc], msg, type }]);

/** The specs sent (a list, its JSON text, or nothing for the defaults); a malformed one is a 422 naming it. */
export function metricSpecs(value: unknown): MetricSpec[] {
  if (value === undefined || value === null || value === "") return DEFAULT_METRIC_SPECS;
  let list = value;
  if (typeof value === "string") {
    try {
      list = JSON.parse(value);
    } catch {
      throw invalid([], "specs is neither a list of metric specs nor its JSON text", "json_invalid");
    }
  }
  if (!Array.isArray(list)) throw invalid([], "specs must be a list of metric specs", "list_type");
  if (list.length === 0) return DEFAULT_METRIC_SPECS;
  if (list.length > MAX_METRIC_SPECS) {
    throw invalid([], `at most ${MAX_METRIC_SPECS} metric specs a query, got ${list.length}`, "too_long");
  }
  return list.map((spec, i) => metricSpec(spec, i));
}

function metricSpec(spec: unknown, i: number): MetricSpec {
  if (!isObject(spec)) throw invalid([i], "a metric spec is an object {type, path}", "dict_type");
  const type = spec.type ?? "none";
  if (typeof type !== "string" || !TYPES.includes(type)) {
    throw invalid([i, "type"], `type is one of ${TYPES.join(", ")}; got ${JSON.stringify(type)}`, "enum");
  }
  const path = spec.path ?? "*";
  if (typeof path !== "string" || path === "") {
    throw invalid([i, "path"], "path is a dotted attribute key", "string_type");
  }
  const out: MetricSpec = { type: type as MetricSpec["type"], path };
  if (spec.bins !== undefined && spec.bins !== null) {
    if (!Number.isInteger(spec.bins)) throw invalid([i, "bins"], "bins is a whole number", "int_type");
    if ((spec.bins as number) > MAX_HISTOGRAM_BINS) {
      throw invalid([i, "bins"], `at most ${MAX_HISTOGRAM_BINS} bins, got ${String(spec.bins)}`, "less_than_equal");
    }
    out.bins = spec.bins as number;
  }
  for (const key of ["vmin", "vmax"] as const) {
    if (spec[key] === undefined || spec[key] === null) continue;
    if (typeof spec[key] !== "number" || !Number.isFinite(spec[key])) {
      throw invalid([i, key], `${key} is a number`, "float_type");
    }
    out[key] = spec[key] as number;
  }
  if (spec.edge !== undefined && spec.edge !== null) {
    if (typeof spec.edge !== "boolean") throw invalid([i, "edge"], "edge is true or false", "bool_type");
    out.edge = spec.edge;
  }
  return out;
}
