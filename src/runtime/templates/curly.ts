import { type Found, type JsonObject, MISSING, resolveDotPath } from "./json-data.ts";
import { queryJsonPath } from "./json-path.ts";
import { resolvePointer } from "./json-pointer.ts";
import { missingVariables } from "./template-error.ts";
import { valueText } from "./value-text.ts";

const PLACEHOLDER = /\{\{([\s\S]*?)\}\}/g;

/**
 * `{{ expr }}` where expr is a dot path, a `$…` JSONPath or a `/…` JSON Pointer. One pass: a value
 * that itself contains `{{…}}` is written as is, never rendered again.
 */
export function renderCurly(template: string, context: JsonObject): string {
  const missing: string[] = [];
  const output = template.replace(PLACEHOLDER, (placeholder, raw: string) => {
    const expression = raw.trim();
    const value = resolveExpression(context, expression);
    if (value === MISSING) {
      missing.push(expression);
      return placeholder;
    }
    return valueText(value);
  });
  if (missing.length > 0) throw missingVariables(missing);
  return output;
}

function resolveExpression(context: JsonObject, expression: string): Found {
  if (expression === "") return MISSING;
  if (expression.startsWith("$")) {
    const { values, definite } = queryJsonPath(context, expression);
    if (values.length === 0) return MISSING;
    return definite ? values[0] : values;
  }
  if (expression.startsWith("/")) return resolvePointer(context, expression);
  return resolveDotPath(context, expression);
}
