/*
 * The `ag` namespace of a span's attributes, cleaned as the reference's `initialize_ag_attributes` does: the
 * known parts keep their shape (type, data, metrics, references, session, user, flags, tags, meta, exception,
 * selector) and everything else, or anything of the wrong shape, moves to `ag.unsupported`.
 */

import { setOwn } from "./own-property.ts";

type Json = Record<string, unknown>;

/** The trace types of the reference's span model. */
export const TRACE_TYPES = ["invocation", "annotation", "unknown"];
/** The span types of the reference's span model. */
export const SPAN_TYPES = [
  "agent", "chain", "workflow", "task", "tool", "embedding", "query", "llm", "completion", "chat", "rerank", "unknown",
];
/** The references a span may carry, by key (`ag.references.<key>`). */
export const REFERENCE_KEYS = [
  "testcase", "testset", "testset_variant", "testset_revision", "query", "query_variant", "query_revision",
  "workflow", "workflow_variant", "workflow_revision", "application", "application_variant", "application_revision",
  "evaluator", "evaluator_variant", "evaluator_revision", "environment", "environment_variant", "environment_revision",
  "snippet", "snippet_variant", "snippet_revision",
];
const DATA_FIELDS = ["parameters", "inputs", "outputs", "internals"];
const DICT_DATA_FIELDS = ["parameters", "inputs", "internals"];
const METRIC_FIELDS = ["duration", "errors", "tokens", "costs"];
const SCALAR_METRICS = ["duration", "errors"];
const ENTRY_FIELDS = ["cumulative", "incremental"];
const KNOWN = new Set([
  "type", "data", "session", "user", "metrics", "flags", "tags", "meta", "exception", "references", "selector",
  "unsupported",
]);
const URL_SAFE_SLUG = /^[a-zA-Z0-9_-][a-zA-Z0-9_.-]*$/;

/** Whether a value is a JSON object (not an array, not null). */
export const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const objectAt = (parent: Json, key: string): Json => (isObject(parent[key]) ? parent[key] as Json : {});
const put = (unsupported: Json, path: string[], value: unknown) => {
  let at = unsupported;
  for (const part of path.slice(0, -1)) {
    if (!Object.hasOwn(at, part) || !isObject(at[part])) setOwn(at, part, {});
    at = at[part] as Json;
  }
  setOwn(at, path[path.length - 1]!, value);
};

/** Leaves that are all of one kind (labels: strings and booleans; numbers), nested objects allowed. */
const leavesAre = (value: unknown, ok: (leaf: unknown) => boolean): boolean =>
  isObject(value) ? Object.values(value).every((v) => leavesAre(v, ok)) : ok(value);
const isLabel = (leaf: unknown) => typeof leaf === "string" || typeof leaf === "boolean";
const isNumber = (leaf: unknown) => typeof leaf === "number" && Number.isFinite(leaf);

/** The attributes with their `ag` namespace cleaned (a new object; `attributes` is not changed). */
export function cleanAgAttributes(attributes: Json): Json {
  const raw = attributes.ag;
  const ag: Json = isObject(raw) ? raw : {};
  const unsupported: Json = !isObject(raw) && raw !== undefined ? { _invalid: raw }
    : isObject(ag.unsupported) ? { ...ag.unsupported }
    : ag.unsupported !== undefined ? { _unsupported: ag.unsupported } : {};
  const clean: Json = {};

  const type = objectAt(ag, "type");
  const cleanType: Json = {};
  if (TRACE_TYPES.includes(type.trace as string)) cleanType.trace = type.trace;
  if (SPAN_TYPES.includes(type.span as string)) cleanType.span = type.span;
  for (const key of Object.keys(type)) {
    if (key !== "trace" && key !== "span") put(unsupported, ["type", key], type[key]);
  }
  clean.type = cleanType;

  const data = objectAt(ag, "data");
  const cleanData: Json = {};
  for (const key of DATA_FIELDS) if (data[key] !== undefined && data[key] !== null) cleanData[key] = data[key];
  for (const key of Object.keys(data)) if (!DATA_FIELDS.includes(key)) put(unsupported, ["data", key], data[key]);
  for (const key of DICT_DATA_FIELDS) {
    const value = cleanData[key];
    if (value === undefined || isObject(value)) continue;
    const parsed = typeof value === "string" ? parseJson(value) : undefined;
    if (isObject(parsed)) cleanData[key] = parsed;
    else {
      put(unsupported, ["data", key], value);
      delete cleanData[key];
    }
  }
  clean.data = cleanData;

  const metrics = objectAt(ag, "metrics");
  const cleanMetrics: Json = {};
  for (const name of METRIC_FIELDS) {
    const entry = objectAt(metrics, name);
    const cleanEntry: Json = {};
    for (const sub of ENTRY_FIELDS) {
      const value = entry[sub];
      if (value === undefined || value === null) continue;
      if (SCALAR_METRICS.includes(name)) {
        const scalar = scalarMetric(value);
        if (scalar === null) put(unsupported, ["metrics", name, sub], value);
        else cleanEntry[sub] = scalar;
      } else if (isObject(value) && leavesAre(value, isNumber)) cleanEntry[sub] = value;
      else put(unsupported, ["metrics", name, sub], value);
    }
    for (const sub of Object.keys(entry)) {
      if (!ENTRY_FIELDS.includes(sub)) put(unsupported, ["metrics", name, sub], entry[sub]);
    }
    cleanMetrics[name] = cleanEntry;
  }
  for (const name of Object.keys(metrics)) {
    if (!METRIC_FIELDS.includes(name)) put(unsupported, ["metrics", name], metrics[name]);
  }
  clean.metrics = cleanMetrics;

  const references = objectAt(ag, "references");
  const cleanReferences: Json = {};
  for (const key of Object.keys(references)) {
    if (!REFERENCE_KEYS.includes(key) || !isObject(references[key])) continue;
    const ref = references[key] as Json;
    const entry: Json = {};
    if (ref.id !== undefined && ref.id !== null) entry.id = String(ref.id);
    if (ref.slug !== undefined && ref.slug !== null) {
      entry.slug = URL_SAFE_SLUG.test(String(ref.slug)) ? String(ref.slug) : null;
    }
    if (ref.version !== undefined && ref.version !== null) entry.version = String(ref.version);
    cleanReferences[key] = withoutNulls(entry);
  }
  if (Object.keys(cleanReferences).length > 0) clean.references = cleanReferences;

  for (const key of ["session", "user"]) {
    const value = ag[key];
    if (isObject(value) && value.id !== undefined && value.id !== null) clean[key] = { id: String(value.id) };
  }

  for (const key of ["flags", "tags", "meta", "exception", "selector"]) {
    const value = ag[key];
    if (value === undefined || value === null) continue;
    const fits = key === "flags" || key === "tags" ? isObject(value) && leavesAre(value, isLabel)
      : key === "selector" ? isObject(value) && Object.values(value).every((v) => typeof v === "string")
      : isObject(value);
    if (fits) clean[key] = value;
    else setOwn(unsupported, key, value);
  }
  const meta = clean.meta as Json | undefined;
  if (meta && "configuration" in meta) {
    const { configuration, ...rest } = meta;
    if (cleanData.parameters === undefined && isObject(configuration)) cleanData.parameters = configuration;
    if (Object.keys(rest).length > 0) clean.meta = rest;
    else delete clean.meta;
  }

  for (const key of Object.keys(ag)) if (!KNOWN.has(key) && key !== "refs") setOwn(unsupported, key, ag[key]);
  if (Object.keys(unsupported).length > 0) clean.unsupported = unsupported;
  return { ...attributes, ag: clean };
}

/** A duration or error count: a number, or the first number of an object's total, count or value. */
function scalarMetric(value: unknown): number | null {
  if (isNumber(value)) return value as number;
  if (isObject(value)) {
    for (const key of ["total", "count", "value"]) if (isNumber(value[key])) return value[key] as number;
  }
  return null;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const withoutNulls = (o: Json) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null));
