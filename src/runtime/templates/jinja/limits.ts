import { RenderBudget } from "../render-budget.ts";
import { TemplateError } from "../template-error.ts";

// The budget of the Jinja render in progress. Rendering is synchronous, so one slot is enough, and the
// value helpers (repr, equality, filters, methods) can charge it without threading it through every call.
let current: RenderBudget | null = null;

/** Runs `render` with `budget` as the one value helpers charge. */
export function withBudget<T>(budget: RenderBudget, render: () => T): T {
  const previous = current;
  current = budget;
  try {
    return render();
  } finally {
    current = previous;
  }
}

/** The budget being spent; outside a render (direct helper calls), a fresh default one. */
export function budget(): RenderBudget {
  return current ?? new RenderBudget();
}

/** Before building a string of `length` characters: within the output cap, paid in steps. */
export function reserveChars(length: number): void {
  budget().reserveChars(length);
}

/** Before building a list of `count` items: one step each. */
export function reserveItems(count: number): void {
  budget().reserveItems(count);
}

/** A count argument (a width, a length): finite, and no larger than a value may be. */
export function boundedCount(value: number, what: string): number {
  if (!Number.isFinite(value)) throw new TemplateError(`${what} is too large`);
  const count = Math.max(0, Math.trunc(value));
  reserveChars(count);
  return count;
}

/** `items` as text, joined by `separator`, refused as soon as the running length passes the output cap. */
export function joinWithin<T>(items: readonly T[], separator: string, toText: (item: T) => string): string {
  const parts: string[] = [];
  let length = 0;
  for (const item of items) {
    const part = toText(item);
    length += part.length + (parts.length > 0 ? separator.length : 0);
    budget().checkChars(length);
    parts.push(part);
  }
  reserveChars(length);
  return parts.join(separator);
}
