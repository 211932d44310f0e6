import { renderCurly } from "./curly.ts";
import { renderFString } from "./fstring.ts";
import { renderJinja } from "./jinja2.ts";
import type { JsonObject } from "./json-data.ts";
import { renderMustache } from "./mustache.ts";
import { RenderBudget } from "./render-budget.ts";
import { TemplateError } from "./template-error.ts";

export const TEMPLATE_FORMATS = ["curly", "mustache", "fstring", "jinja2"] as const;
export type TemplateFormat = (typeof TEMPLATE_FORMATS)[number];

const RENDERERS: Record<TemplateFormat, (template: string, context: JsonObject, budget: RenderBudget) => string> = {
  curly: renderCurly,
  mustache: renderMustache,
  fstring: renderFString,
  jinja2: renderJinja,
};

export function isTemplateFormat(value: unknown): value is TemplateFormat {
  return typeof value === "string" && (TEMPLATE_FORMATS as readonly string[]).includes(value);
}

/**
 * Renders one string; throws TemplateError for bad syntax or missing variables, TemplateLimitError
 * when the budget (shared by everything rendered for one prompt) runs out.
 */
export function renderTemplate(
  format: TemplateFormat, template: string, context: JsonObject, budget = new RenderBudget(),
): string {
  try {
    return RENDERERS[format](template, context, budget);
  } catch (error) {
    // Deeply nested templates or data can exhaust the stack or string length; report, don't crash.
    if (error instanceof RangeError) throw new TemplateError(`Template is too large or too deeply nested to render (${error.message})`);
    throw error;
  }
}
