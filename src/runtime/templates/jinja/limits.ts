import { TemplateError } from "../template-error.ts";

/** Bounds that keep a hostile template from exhausting CPU or memory. */
export const MAX_STEPS = 1_000_000;
export const MAX_STRING = 4_000_000;
export const MAX_LIST = 100_000;

export function checkSize<T>(value: T): T {
  if (typeof value === "string" && value.length > MAX_STRING) throw new TemplateError(`Template produced a string longer than ${MAX_STRING} characters`);
  if (Array.isArray(value) && value.length > MAX_LIST) throw new TemplateError(`Template produced a list longer than ${MAX_LIST} items`);
  return value;
}

export function boundedCount(value: number, what: string): number {
  if (!Number.isFinite(value) || value > MAX_STRING) throw new TemplateError(`${what} is too large`);
  return Math.max(0, Math.trunc(value));
}
