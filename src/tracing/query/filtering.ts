/*
 * The reference's span filtering as SQL: conditions `{field, key, operator, value, options}` combined by
 * `and`, `or`, `not`, `nand` or `nor`, nested as deep as sent. A condition the reference would refuse is a 400
 * naming it; a field it does not know is ignored, as there.
 */

import { badRequest } from "../../errors.ts";
import { isObject, SPAN_TYPES, TRACE_TYPES } from "../ag-attributes.ts";
import { spanIdToUuid, traceIdToUuid } from "../span.ts";
import { labelsHold } from "../span-labels.ts";
import { timestampOf } from "./timestamps.ts";

type Json = Record<string, unknown>;

/** Query parameters, numbered as they are added. */
export class Params {
  readonly values: unknown[] = [];
  /** The placeholder of `value`, cast to `type` when given. */
  add(value: unknown, type?: string): string {
    this.values.push(value);
    return type ? `$${this.values.length}::${type}` : `$${this.values.length}`;
  }
}

const COMPARISON = ["is", "is_not"];
const NUMERIC = ["eq", "neq", "gt", "lt", "gte", "lte", "btwn"];
const STRING = ["startswith", "endswith", "contains", "matches", "like"];
const LIST = ["in", "not_in"];
const DICT = ["has", "has_not"];
const EXISTENCE = ["exists", "not_exists"];
const LOGICAL = ["and", "or", "not", "nand", "nor"];

const SPAN_KINDS = [
  "SPAN_KIND_UNSPECIFIED", "SPAN_KIND_INTERNAL", "SPAN_KIND_SERVER", "SPAN_KIND_CLIENT", "SPAN_KIND_PRODUCER",
  "SPAN_KIND_CONSUMER",
];
const STATUS_CODES = ["STATUS_CODE_UNSET", "STATUS_CODE_OK", "STATUS_CODE_ERROR"];
const ENUMS: Record<string, string[]> = {
  trace_type: TRACE_TYPES, span_type: SPAN_TYPES, span_kind: SPAN_KINDS, status_code: STATUS_CODES,
};
const IDS: Record<string, (id: string) => string> = {
  trace_id: traceIdToUuid, span_id: spanIdToUuid, parent_id: spanIdToUuid,
};
const STRINGS = ["span_name", "status_message", "session_id", "user_id", "agent_id"];
const TIMES = ["start_time", "end_time", "created_at"];
const LISTS = ["references", "links", "events"];

/** The SQL of a `filtering` object (TRUE when it has no conditions). */
export function filteringSql(filtering: unknown, params: Params): string {
  if (filtering === undefined || filtering === null) return "TRUE";
  if (!isObject(filtering)) throw badRequest("filtering must be an object with `operator` and `conditions`");
  const operator = filtering.operator ?? "and";
  if (typeof operator !== "string" || !LOGICAL.includes(operator)) {
    throw badRequest(`Unsupported logical operator: ${String(operator)}`);
  }
  const conditions = filtering.conditions ?? [];
  if (!Array.isArray(conditions)) throw badRequest("filtering.conditions must be a list");
  const clauses = conditions.map((c) => {
    if (!isObject(c)) throw badRequest("each condition is an object");
    return "conditions" in c && !("field" in c) ? filteringSql(c, params) : conditionSql(c, params);
  });
  if (clauses.length === 0) return "TRUE";
  const joined = (word: string) => `(${clauses.join(` ${word} `)})`;
  switch (operator) {
    case "or": return joined("OR");
    case "nand": return `NOT ${joined("AND")}`;
    case "nor": return `NOT ${joined("OR")}`;
    case "not":
      if (clauses.length !== 1) throw badRequest("'NOT' operator only supports a single condition.");
      return `NOT (${clauses[0]})`;
    default: return joined("AND");
  }
}

function conditionSql(c: Json, params: Params): string {
  const field = String(c.field);
  const operator = c.operator === undefined || c.operator === null ? "is" : String(c.operator);
  if (![...COMPARISON, ...NUMERIC, ...STRING, ...LIST, ...DICT, ...EXISTENCE].includes(operator)) {
    throw badRequest(`Unsupported condition operator: '${operator}'`);
  }
  const key = typeof c.key === "string" ? c.key : null;
  const options = isObject(c.options) ? c.options : {};
  if (IDS[field]) return idSql(field, operator, c.value, params);
  if (ENUMS[field]) return enumSql(field, operator, c.value, params);
  if (STRINGS.includes(field)) return textSql(field, operator, c.value, options, params);
  if (TIMES.includes(field)) return timeSql(field, operator, c.value, params);
  if (field === "attributes") {
    if (!key) throw badRequest("'attributes' key is required and thus never null.");
    return attributeSql(key, operator, c.value, options, params);
  }
  if (LISTS.includes(field)) return listFieldSql(field, operator, c.value, params);
  if (field === "content") {
    if (operator !== "contains" || typeof c.value !== "string") {
      throw badRequest("'content' only supports full-text search operator: 'contains' with a string value.");
    }
    const query = params.add(c.value);
    return `(to_tsvector('simple', coalesce(attributes, '{}'::jsonb)) @@ websearch_to_tsquery('simple', ${query})
      OR to_tsvector('simple', coalesce(events, '[]'::jsonb)) @@ websearch_to_tsquery('simple', ${query}))`;
  }
  return "TRUE";
}

const list = (value: unknown, field: string): unknown[] => {
  if (!Array.isArray(value)) throw badRequest(`'${field}' value must be a list for list operators.`);
  return value;
};

function idSql(field: string, operator: string, value: unknown, params: Params): string {
  const parse = (v: unknown) => {
    try {
      return IDS[field]!(String(v));
    } catch {
      throw badRequest(`'${field}' value is not a valid id: ${String(v)}`);
    }
  };
  if (EXISTENCE.includes(operator)) return `${field} IS ${operator === "exists" ? "NOT " : ""}NULL`;
  if (LIST.includes(operator)) {
    const ids = params.add(list(value, field).map(parse), "uuid[]");
    return operator === "in" ? `${field} = ANY(${ids})` : `NOT (${field} = ANY(${ids}))`;
  }
  if (!COMPARISON.includes(operator)) throw badRequest(`'${field}' only supports comparison and list operators.`);
  if (value === null || value === undefined) {
    if (field !== "parent_id") throw badRequest(`'${field}' is required and thus never null.`);
    return `${field} IS ${operator === "is" ? "" : "NOT "}NULL`;
  }
  if (Array.isArray(value)) return idSql(field, operator === "is" ? "in" : "not_in", value, params);
  return `${field} ${operator === "is" ? "=" : "<>"} ${params.add(parse(value), "uuid")}`;
}

function enumSql(field: string, operator: string, value: unknown, params: Params): string {
  const check = (v: unknown) => {
    if (!ENUMS[field]!.includes(String(v))) throw badRequest(`Unsupported condition value: '${String(v)}'`);
    return String(v);
  };
  if (LIST.includes(operator)) {
    const values = params.add(list(value, field).map(check), "text[]");
    return operator === "in" ? `${field} = ANY(${values})` : `NOT (${field} = ANY(${values}))`;
  }
  if (!COMPARISON.includes(operator)) throw badRequest(`'${field}' only supports comparison and list operators.`);
  if (value === null || value === undefined) return `${field} IS ${operator === "is" ? "" : "NOT "}NULL`;
  return `${field} ${operator === "is" ? "=" : "<>"} ${params.add(check(value))}`;
}

/** A text column (or expression) compared, matched or listed. */
function textSql(column: string, operator: string, value: unknown, options: Json, params: Params): string {
  if (EXISTENCE.includes(operator)) return `${column} IS ${operator === "exists" ? "NOT " : ""}NULL`;
  if (COMPARISON.includes(operator)) {
    if (value === null || value === undefined) return `${column} IS ${operator === "is" ? "" : "NOT "}NULL`;
    return `${column} ${operator === "is" ? "=" : "<>"} ${params.add(String(value))}`;
  }
  if (value === null || value === undefined) throw badRequest(`'${column}' value is required for '${operator}'.`);
  if (LIST.includes(operator)) {
    const values = params.add(list(value, column).map(String), "text[]");
    return operator === "in" ? `${column} = ANY(${values})` : `NOT (${column} = ANY(${values}))`;
  }
  if (NUMERIC.includes(operator)) return compareSql(column, operator, value, (v) => params.add(String(v)));
  if (STRING.includes(operator)) return matchSql(column, operator, String(value), options, params);
  throw badRequest(`'${column}' does not support '${operator}'.`);
}

function matchSql(column: string, operator: string, value: string, options: Json, params: Params): string {
  const caseSensitive = options.case_sensitive === true;
  const like = caseSensitive ? "LIKE" : "ILIKE";
  const escaped = value.replace(/[\\%_]/g, (ch) => `\\${ch}`);
  switch (operator) {
    case "startswith": return `${column} ${like} ${params.add(`${escaped}%`)}`;
    case "endswith": return `${column} ${like} ${params.add(`%${escaped}`)}`;
    case "like": return `${column} ${like} ${params.add(value)}`;
    case "matches":
      if (options.exact_match === true) {
        return caseSensitive ? `${column} = ${params.add(value)}` : `${column} ILIKE ${params.add(escaped)}`;
      }
      return `${column} ${like} ${params.add(`%${escaped}%`)}`;
    default: return `${column} ${like} ${params.add(`%${escaped}%`)}`;
  }
}

function compareSql(column: string, operator: string, value: unknown, param: (v: unknown) => string): string {
  if (operator === "btwn") {
    if (!Array.isArray(value) || value.length !== 2) {
      throw badRequest("'btwn' takes a value of two bounds: [low, high]");
    }
    return `${column} BETWEEN ${param(value[0])} AND ${param(value[1])}`;
  }
  const sign = { eq: "=", neq: "<>", gt: ">", lt: "<", gte: ">=", lte: "<=" }[operator]!;
  return `${column} ${sign} ${param(value)}`;
}

function timeSql(field: string, operator: string, value: unknown, params: Params): string {
  const at = (v: unknown) => {
    const time = timestampOf(v);
    if (time === null) throw badRequest(`'${field}' value is not a timestamp: ${String(v)}`);
    return params.add(time, "timestamptz");
  };
  if (STRING.includes(operator)) {
    if (typeof value !== "string") throw badRequest(`'${field}' only supports string operators with string values.`);
    return matchSql(`${field}::text`, operator, value, {}, params);
  }
  if (LIST.includes(operator)) {
    const values = list(value, field).map(at);
    return `${operator === "not_in" ? "NOT " : ""}(${field} IN (${values.join(", ")}))`;
  }
  if (COMPARISON.includes(operator)) return `${field} ${operator === "is" ? "=" : "<>"} ${at(value)}`;
  if (NUMERIC.includes(operator)) return compareSql(field, operator, value, at);
  throw badRequest(`'${field}' only supports comparison, numeric, string, and list operators.`);
}

/** `attributes` at a dotted key: containment for is/is_not, the leaf as a number or text for the others. */
function attributeSql(key: string, operator: string, value: unknown, options: Json, params: Params): string {
  const parts = key.split(".");
  if (COMPARISON.includes(operator)) {
    const x = nest(parts, value) as Record<string, unknown>;
    const nested = params.add(JSON.stringify(x), "jsonb");
    if (operator === "is_not") return `NOT coalesce(attributes @> ${nested}, false)`;
    return labelsHold(x) ? `labels @> ${nested}` : `attributes @> ${nested}`;
  }
  // Added only here: a parameter the statement does not use has no type, and PostgreSQL refuses it.
  const container = parts.length > 1 ? `attributes #> ${params.add(parts.slice(0, -1), "text[]")}` : "attributes";
  const leaf = params.add(parts[parts.length - 1]!, "text");
  const has = `coalesce(jsonb_typeof(${container}) = 'object' AND (${container}) ? ${leaf}, false)`;
  const text = `(${container}) ->> ${leaf}`;
  if (EXISTENCE.includes(operator)) return operator === "exists" ? has : `NOT ${has}`;
  if (NUMERIC.includes(operator)) {
    const numbers = typeof value === "number" || (Array.isArray(value) && value.every((v) => typeof v === "number"));
    // A leaf that is not a number compares as no number at all (NULL), never as an error.
    const column = numbers
      ? `(CASE WHEN jsonb_typeof((${container}) -> ${leaf}) = 'number' THEN (${text})::float8 END)`
      : text;
    const bound = (v: unknown) => (numbers ? params.add(v, "float8") : params.add(String(v)));
    return `(${has} AND ${compareSql(column, operator, value, bound)})`;
  }
  if (STRING.includes(operator)) {
    if (typeof value !== "string") throw badRequest(`'attributes' value must be a string for '${operator}'.`);
    return `(${has} AND ${matchSql(text, operator, value, options, params)})`;
  }
  if (LIST.includes(operator)) {
    const values = list(value, "attributes").map((v) => {
      const one = params.add(JSON.stringify(v), "jsonb");
      const wrapped = params.add(JSON.stringify([v]), "jsonb");
      return `((${container}) -> ${leaf} = ${one} OR (${container}) -> ${leaf} @> ${wrapped})`;
    });
    const any = values.length > 0 ? `(${values.join(" OR ")})` : "FALSE";
    return operator === "in" ? `coalesce(${any}, false)` : `NOT coalesce(${any}, false)`;
  }
  throw badRequest(`'attributes' does not support '${operator}'.`);
}

const nest = (parts: string[], value: unknown): unknown =>
  parts.reduceRight<unknown>((inner, part) => ({ [part]: inner }), value);

/** references, links and events: lists of objects matched by (partial) containment. */
function listFieldSql(field: string, operator: string, value: unknown, params: Params): string {
  const column = field === "references" ? '"references"' : field;
  if (EXISTENCE.includes(operator)) return `${column} IS ${operator === "exists" ? "NOT " : ""}NULL`;
  if (!LIST.includes(operator)) throw badRequest(`'${field}' only supports list and existence operators here.`);
  const items = list(value, field).map((v) => {
    if (!isObject(v)) throw badRequest(`'${field}' value must be one or more (possibly partial) ${field}.`);
    return partsOf(field, v);
  }).flat();
  const clauses = items.map((item) => `${column} @> ${params.add(JSON.stringify([item]), "jsonb")}`);
  // Never NULL, so that `not` of it holds for a span without any; written without coalesce(), which would hide the
  // containments from the references' index (migration 037).
  const any = clauses.length > 0 ? `(${column} IS NOT NULL AND (${clauses.join(" OR ")}))` : "FALSE";
  return operator === "in" ? any : `NOT ${any}`;
}

/** What one listed value matches: a reference by id, slug or version; a link by its ids; an event by name. */
function partsOf(field: string, v: Json): Json[] {
  try {
    if (field === "references") {
      const out: Json[] = [];
      if (v.id) out.push({ id: traceIdToUuid(String(v.id)) });
      if (v.slug) out.push({ slug: String(v.slug) });
      if (v.version) out.push({ version: String(v.version) });
      return out;
    }
    if (field === "links") {
      const link: Json = {};
      if (v.trace_id) link.trace_id = traceIdToUuid(String(v.trace_id));
      if (v.span_id) link.span_id = spanIdToUuid(String(v.span_id));
      return [link];
    }
    return v.name ? [{ name: String(v.name) }] : [];
  } catch {
    throw badRequest(`'${field}' value must be one or more (possibly partial) ${field}.`);
  }
}
