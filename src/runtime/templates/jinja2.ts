import type { JsonObject } from "./json-data.ts";
import type { RenderBudget } from "./render-budget.ts";
import { Interpreter } from "./jinja/interpreter.ts";
import { tokenize } from "./jinja/lexer.ts";
import { withBudget } from "./jinja/limits.ts";
import { parse } from "./jinja/parser.ts";

/**
 * Jinja2, sandboxed by construction: an interpreter of our own over JSON data rather than compiled
 * code, where attribute access reads only own data keys and calls reach only a fixed table of
 * filters, tests and methods. Undefined values print as empty.
 */
export function renderJinja(template: string, context: JsonObject, budget: RenderBudget): string {
  return withBudget(budget, () => new Interpreter(context, budget).render(parse(tokenize(template))));
}
