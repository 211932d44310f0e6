import type { JsonSchema } from "./entry.ts";

/*
 * Small builders for the catalog's JSON Schemas. No `$schema` keyword is emitted: the schemas are
 * validated by Ajv's default draft elsewhere, which rejects an unknown meta-schema.
 * `x-ag-*` keywords are the reference's UI hints (ignored by validators with strict mode off).
 */

interface ObjectOptions {
  required?: string[];
  /** Whether keys other than `properties` are allowed; JSON Schema's default (open) when omitted. */
  additional?: boolean | JsonSchema;
  [keyword: string]: unknown;
}

export function object(properties: Record<string, JsonSchema>, options: ObjectOptions = {}): JsonSchema {
  const { required, additional, ...rest } = options;
  const schema: JsonSchema = { type: "object", ...rest, properties };
  if (required && required.length > 0) schema.required = required;
  if (additional !== undefined) schema.additionalProperties = additional;
  return schema;
}

export const openObject = (extra: JsonSchema = {}): JsonSchema =>
  object({}, { additional: true, ...extra });

export const string = (extra: JsonSchema = {}): JsonSchema => ({ type: "string", ...extra });
export const number = (extra: JsonSchema = {}): JsonSchema => ({ type: "number", ...extra });
export const integer = (extra: JsonSchema = {}): JsonSchema => ({ type: "integer", ...extra });
export const boolean = (extra: JsonSchema = {}): JsonSchema => ({ type: "boolean", ...extra });
export const array = (items: JsonSchema, extra: JsonSchema = {}): JsonSchema => ({ type: "array", items, ...extra });
export const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: "null" }] });

/** Outputs of a pass/fail check. */
export const SUCCESS_OUTPUTS: JsonSchema = object({ success: boolean() }, { required: ["success"], additional: false });

/** Outputs of a scored check; `success` is the score compared with a threshold, when one is set. */
export const SCORE_OUTPUTS: JsonSchema = object({ score: number(), success: boolean() }, { required: ["score"], additional: false });
