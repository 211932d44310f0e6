import { type JsonObject, listElement, MISSING, ownProperty, resolveDotPath } from "./json-data.ts";
import type { RenderBudget } from "./render-budget.ts";
import { missingVariables, TemplateError } from "./template-error.ts";
import { valueText } from "./value-text.ts";

/**
 * Python `str.format` with keyword fields: `{name}`, `{name.key}`, `{name[0]}`; `{{` and `}}` are
 * literal braces. Conversions and format specs (`{x!r}`, `{x:>4}`) are not supported.
 */
export function renderFString(template: string, context: JsonObject, budget: RenderBudget): string {
  let output = "";
  let literal = "";
  const missing: string[] = [];
  for (let i = 0; i < template.length; i++) {
    const c = template[i];
    if (c === "{" && template[i + 1] === "{") {
      literal += "{";
      i++;
    } else if (c === "}" && template[i + 1] === "}") {
      literal += "}";
      i++;
    } else if (c === "}") {
      throw new TemplateError(`Single '}' encountered in format string at position ${i}`);
    } else if (c === "{") {
      const close = template.indexOf("}", i);
      const field = close === -1 ? "" : template.slice(i + 1, close);
      if (close === -1 || field.includes("{")) throw new TemplateError(`Unclosed '{' in format string at position ${i}`);
      if (field === "") throw new TemplateError("Positional fields '{}' are not supported; name the variable");
      if (/[!:]/.test(field)) throw new TemplateError(`Conversions and format specs are not supported: {${field}}`);
      budget.step();
      output += budget.emit(literal);
      literal = "";
      const value = resolveField(context, field);
      if (value === MISSING) missing.push(field);
      else output += budget.emit(valueText(value, budget));
      i = close;
    } else {
      literal += c;
    }
  }
  output += budget.emit(literal);
  if (missing.length > 0) throw missingVariables(missing);
  return output;
}

function resolveField(context: JsonObject, field: string): unknown {
  if (Object.hasOwn(context, field)) return context[field];
  const parts = /^([^.[]+)((?:\.[^.[]+|\[[^\]]*\])*)$/.exec(field);
  if (!parts) return resolveDotPath(context, field);
  let current = ownProperty(context, parts[1]);
  for (const [, attribute, item] of parts[2].matchAll(/\.([^.[]+)|\[([^\]]*)\]/g)) {
    if (current === MISSING) return MISSING;
    const key = attribute ?? item;
    current = Array.isArray(current) ? listElement(current, key) : ownProperty(current, key);
  }
  return current;
}
