import { Ajv, type ErrorObject } from "ajv";
import addFormatsModule from "ajv-formats";
import type { FastifySchemaCompiler } from "fastify";
import type { ValidationIssue } from "../errors.ts";

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function compiler(coerceTypes: boolean | "array"): Ajv {
  // removeAdditional stays off: unknown fields are an error (422), not silently dropped.
  const ajv = new Ajv({ coerceTypes, useDefaults: true, removeAdditional: false, allErrors: false, strict: false });
  addFormats(ajv);
  return ajv;
}

const bodies = compiler(false);
const parameters = compiler("array");

/** Bodies are validated strictly; path and query strings are text and may be coerced to numbers/booleans. */
export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) =>
  (httpPart === "body" ? bodies : parameters).compile(schema) as ReturnType<FastifySchemaCompiler<object>>;

const PART: Record<string, string> = { body: "body", querystring: "query", params: "path", headers: "header" };

/** Ajv errors in the `{loc, msg, type}` form of the reference's HTTPValidationError. */
export function toIssues(errors: ErrorObject[], context: string): ValidationIssue[] {
  return errors.map((e) => {
    const loc: (string | number)[] = [PART[context] ?? context];
    for (const seg of e.instancePath.split("/").slice(1)) {
      const key = seg.replace(/~1/g, "/").replace(/~0/g, "~");
      loc.push(/^\d+$/.test(key) ? Number(key) : key);
    }
    switch (e.keyword) {
      case "required":
        return { loc: [...loc, e.params.missingProperty], msg: "Field required", type: "missing" };
      case "additionalProperties":
        return { loc: [...loc, e.params.additionalProperty], msg: "Extra inputs are not permitted", type: "extra_forbidden" };
      case "type":
        return { loc, msg: `Input should be of type ${e.params.type}`, type: `${e.params.type}_type` };
      case "format":
        return { loc, msg: `Input should be a valid ${e.params.format}`, type: `${e.params.format}_parsing` };
      case "enum":
        return { loc, msg: `Input should be one of ${e.params.allowedValues.map((v: unknown) => JSON.stringify(v)).join(", ")}`, type: "enum" };
      default:
        return { loc, msg: e.message ?? "Invalid value", type: e.keyword };
    }
  });
}
