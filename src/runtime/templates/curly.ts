import { type Found, type JsonObject, MISSING, resolveDotPath } from "./json-data.ts";
import { queryJsonPath } from "./json-path.ts";
import { resolvePointer } from "./json-pointer.ts";
import type { RenderBudget } from "./render-budget.ts";
import { missingVariables } from "./template-error.ts";
import { valueText } from "./value-text.ts";

const PLACEHOLDER = /\{\{([\s\S]*?)\}\}/g;

/**
 * `{{ expr }}` where expr is a dot path, a `$…` JSONPath or a `/…` JSON Pointer. One pass: a value
 * that itself contains `{{…}}` is written as is, never rendered again.
 */
export function renderCurly(template: string, context: JsonObject, budget: RenderBudget): string {
  const missing: string[] = [];
  let output = "";
  let literalStart = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    output += budget.emit(template.slice(literalStart, match.index));
    literalStart = match.index + match[0].length;
    const expression = match[1].trim();
    const value = resolveExpression(context, expression, budget);
    if (value === MISSING) {
      missing.push(expression);
      output += budget.emit(match[0]);
    } else {
      output += budget.emit(valueText(value, budget));
    }
  }
  output += budget.emit(template.slice(literalStart));
  if (missing.length > 0) throw missingVariables(missing);
  return output;
}

function resolveExpression(context: JsonObject, expression: string, budget: RenderBudget): Found {
  budget.step();
  if (expression === "") return MISSING;
  if (expression.startsWith("$")) {
    const { values, definite } = queryJsonPath(context, expression, budget);
    if (values.length === 0) return MISSING;
    return definite ? values[0] : values;
  }
  if (expression.startsWith("/")) return resolvePointer(context, expression);
  return resolveDotPath(context, expression);
}
