import type { RenderBudget } from "./render-budget.ts";

/**
 * How a value is written into a prompt: strings as they are, everything else as JSON. With a budget,
 * serialising pays a step per node and stops as soon as the text could no longer fit.
 */
export function valueText(value: unknown, budget?: RenderBudget): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "";
  if (budget === undefined || typeof value !== "object" || value === null) return JSON.stringify(value) ?? "";
  const meter = budget.meter();
  // A lower bound of each node's share of the JSON text: its key (objects only) and at least one character.
  return JSON.stringify(value, function (this: unknown, key: string, item: unknown) {
    meter((Array.isArray(this) ? 1 : key.length + 1) + (typeof item === "string" ? item.length : 0));
    return item;
  }) ?? "";
}
