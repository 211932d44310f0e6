/*
 * A JSON Schema inferred from one value, as the reference infers a feedback evaluator's outputs schema from the
 * first annotation that names it; and a check of later outputs against a stored schema.
 */

import { Ajv, type ValidateFunction } from "ajv";
import type { ValidationIssue } from "../../errors.ts";

type Json = Record<string, unknown>;

/** The schema of `value`: objects list their properties (all required), arrays their first item's schema. */
export function inferSchema(value: unknown): Json {
  if (value === null || value === undefined) return { type: "null" };
  if (Array.isArray(value)) {
    return value.length > 0 ? { type: "array", items: inferSchema(value[0]) } : { type: "array" };
  }
  if (typeof value === "object") {
    const properties: Json = {};
    for (const [key, inner] of Object.entries(value)) properties[key] = inferSchema(inner);
    const keys = Object.keys(properties);
    return { type: "object", properties, ...(keys.length > 0 ? { required: keys } : {}) };
  }
  if (typeof value === "number") return { type: Number.isInteger(value) ? "integer" : "number" };
  return { type: typeof value === "boolean" ? "boolean" : "string" };
}

const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
const compiled = new Map<string, ValidateFunction | null>();
const MAX_COMPILED = 256;

function validatorOf(schema: Json): ValidateFunction | null {
  const key = JSON.stringify(schema);
  if (!compiled.has(key)) {
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
    let validate: ValidateFunction | null;
    try {
      validate = ajv.compile(schema);
    } catch {
      validate = null; // a schema Ajv cannot read constrains nothing, as an absent one
    }
    compiled.set(key, validate);
  }
  return compiled.get(key)!;
}

/** Where `outputs` breaks `schema`, as validation issues under `loc` (none when it fits or no schema applies). */
export function outputIssues(outputs: unknown, schema: unknown, loc: string[]): ValidationIssue[] {
  if (!schema || typeof schema !== "object" || Object.keys(schema).length === 0) return [];
  const validate = validatorOf(schema as Json);
  if (!validate || validate(outputs)) return [];
  return (validate.errors ?? []).map((error) => ({
    loc: [...loc, ...error.instancePath.split("/").filter(Boolean)],
    msg: `${error.instancePath || "outputs"} ${error.message ?? "is invalid"}`,
    type: "value_error.json_schema",
  }));
}
