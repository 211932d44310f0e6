import { type Found, type JsonObject, MISSING, resolveDotPath } from "./json-data.ts";
import { queryJsonPath } from "./json-path.ts";
import { resolvePointer } from "./json-pointer.ts";
import type { RenderBudget } from "./render-budget.ts";
import { missingVariables } from "./template-error.ts";
import { valueText } from "./value-text.ts";

/**
 * `{{ expr }}` where expr is a dot path, a `$…` JSONPath or a `/…` JSON Pointer. One pass: a value
 * that itself contains `{{…}}` is written as is, never rendered again.
 */
export function renderCurly(template: string, context: JsonObject, budget: RenderBudget): string {
  const missing: string[] = [];
  let output = "";
  let literalStart = 0;
  // indexOf, not a lazy regex: with many `{{` and no `}}` the regex rescans to the end from each one.
  for (let open = template.indexOf("{{"); open !== -1; open = template.indexOf("{{", literalStart)) {
    const close = template.indexOf("}}", open + 2);
    if (close === -1) break;
    output += budget.emit(template.slice(literalStart, open));
    literalStart = close + 2;
    const expression = template.slice(open + 2, close).trim();
    const value = resolveExpression(context, expression, budget);
    if (value === MISSING) {
      missing.push(expression);
      output += budget.emit(template.slice(open, close + 2));
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
