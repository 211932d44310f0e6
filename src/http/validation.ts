import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import type { FastifySchemaCompiler } from "fastify";
import type { ValidationIssue } from "../errors.ts";
import { FORBID_EXTRAS } from "../schema-parts.ts";
import { FirstUse } from "./first-use.ts";
import { noteIgnored } from "./ignored-fields.ts";

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function compiler(coerceTypes: boolean | "array", allErrors: boolean): Ajv {
  const ajv = new Ajv({
    coerceTypes, useDefaults: true, removeAdditional: false, allErrors, verbose: allErrors, strict: false,
  });
  addFormats(ajv);
  return ajv;
}

// The fast validators stop at the first error; the thorough ones run only on a failure, to find every
// unknown field at once.
const bodies = { fast: compiler(false, false), thorough: compiler(false, true) };
const parameters = { fast: compiler("array", false), thorough: compiler("array", true) };

// Each round drops every unknown field reported; nested unions may need a second look, never many.
const MAX_ROUNDS = 4;

const PART: Record<string, string> = { body: "body", querystring: "query", params: "path", headers: "header" };

type Validator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

function segments(instancePath: string): string[] {
  return instancePath.split("/").slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function at(data: unknown, path: string[]): unknown {
  let node = data;
  for (const key of path) {
    node = node !== null && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined;
  }
  return node;
}

/** An unknown field that may be dropped: everywhere but inside schemas marked FORBID_EXTRAS. */
const droppable = (e: ErrorObject) =>
  e.keyword === "additionalProperties" && !(e.parentSchema as Record<string, unknown> | undefined)?.[FORBID_EXTRAS];

/**
 * Unknown fields are dropped (the reference's models ignore them) and noted for the response's
 * `x-tessera-ignored-fields` header; wrong types, missing fields and unknown fields inside data the
 * reference forbids them in stay validation errors.
 */
function lenient(fast: ValidateFunction, thorough: () => ValidateFunction, part: string): Validator {
  const validate: Validator = (data) => {
    if (fast(data)) return true;
    const ignored = new Set<string>();
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const full = thorough();
      full(data);
      const extras = (full.errors ?? []).filter(droppable);
      let dropped = 0;
      for (const e of extras) {
        const path = segments(e.instancePath);
        const parent = at(data, path) as Record<string, unknown> | undefined;
        const name = e.params.additionalProperty as string;
        if (!parent || typeof parent !== "object" || !(name in parent)) continue;
        delete parent[name];
        ignored.add([part, ...path, name].map(quote).join("."));
        dropped++;
      }
      if (dropped === 0) break;
      if (fast(data)) {
        noteIgnored(data, [...ignored]);
        return true;
      }
    }
    validate.errors = fast.errors;
    return false;
  };
  return validate;
}

/** A path segment as the header shows it: plain when it is a plain name, JSON-quoted (ASCII only) otherwise. */
function quote(segment: string): string {
  if (/^[\w$-]+$/.test(segment)) return segment;
  return JSON.stringify(segment).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

const validators = new FirstUse();

/** Compiles every route's validator not compiled yet: a schema Ajv cannot compile throws here. Returns how many. */
export const compileEveryValidator = () => validators.compileEvery();

/**
 * Bodies are not coerced; path and query strings are text and may be coerced to numbers/booleans. A route's
 * validator is compiled at its first request (first-use.ts).
 */
export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const ajv = httpPart === "body" ? bodies : parameters;
  let thorough: ValidateFunction | undefined;
  const part = PART[httpPart ?? "body"] ?? httpPart ?? "body";
  const compiled = validators.defer(() =>
    lenient(ajv.fast.compile(schema), () => (thorough ??= ajv.thorough.compile(schema)), part));
  const validate: Validator = (data) => {
    const run = compiled();
    const valid = run(data);
    validate.errors = run.errors;
    return valid;
  };
  return validate as ReturnType<FastifySchemaCompiler<object>>;
};

/** Ajv errors in the `{loc, msg, type}` form of the reference's HTTPValidationError. */
export function toIssues(errors: ErrorObject[], context: string): ValidationIssue[] {
  return errors.map((e) => {
    const loc: (string | number)[] = [PART[context] ?? context];
    for (const key of segments(e.instancePath)) loc.push(/^\d+$/.test(key) ? Number(key) : key);
    switch (e.keyword) {
      case "required":
        return { loc: [...loc, e.params.missingProperty], msg: "Field required", type: "missing" };
      case "additionalProperties":
        return {
          loc: [...loc, e.params.additionalProperty], msg: "Extra inputs are not permitted", type: "extra_forbidden",
        };
      case "type":
        return { loc, msg: `Input should be of type ${e.params.type}`, type: `${e.params.type}_type` };
      case "format":
        return { loc, msg: `Input should be a valid ${e.params.format}`, type: `${e.params.format}_parsing` };
      case "enum": {
        const allowed = e.params.allowedValues.map((v: unknown) => JSON.stringify(v)).join(", ");
        return { loc, msg: `Input should be one of ${allowed}`, type: "enum" };
      }
      default:
        return { loc, msg: e.message ?? "Invalid value", type: e.keyword };
    }
  });
}
