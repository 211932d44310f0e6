import { invalidParameters } from "../errors.ts";

/*
 * Reading evaluator parameters. Each failure is a 400 naming the parameter; defaults come from the
 * catalog and are already merged in, so "absent" here means the caller sent null or nothing exists.
 */

const present = (value: unknown) => value !== undefined && value !== null;

export function requiredString(parameters: Record<string, unknown>, name: string, { allowEmpty = false } = {}): string {
  const value = parameters[name];
  if (typeof value !== "string" || (!allowEmpty && value === "")) {
    throw invalidParameters(`parameters.${name} is required and must be a ${allowEmpty ? "string" : "non-empty string"}`);
  }
  return value;
}

export function optionalString(parameters: Record<string, unknown>, name: string): string | undefined {
  const value = parameters[name];
  if (!present(value)) return undefined;
  if (typeof value !== "string") throw invalidParameters(`parameters.${name} must be a string`);
  return value;
}

export function flag(parameters: Record<string, unknown>, name: string, fallback: boolean): boolean {
  const value = parameters[name];
  if (!present(value)) return fallback;
  if (typeof value !== "boolean") throw invalidParameters(`parameters.${name} must be true or false`);
  return value;
}

export function optionalNumber(parameters: Record<string, unknown>, name: string, min: number, max = Number.POSITIVE_INFINITY): number | undefined {
  const value = parameters[name];
  if (!present(value)) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value) || value < min || value > max) {
    throw invalidParameters(`parameters.${name} must be a number${max === Number.POSITIVE_INFINITY ? ` of at least ${min}` : ` between ${min} and ${max}`}`);
  }
  return value;
}

/** A pass mark on a 0–1 score; 0.5 as in the reference when none is set. */
export function threshold(parameters: Record<string, unknown>, name = "threshold"): number {
  return optionalNumber(parameters, name, 0, 1) ?? 0.5;
}

/** Which input (or testcase column) holds the expected answer. */
export function correctAnswerKey(parameters: Record<string, unknown>): string {
  const key = optionalString(parameters, "correct_answer_key") ?? "correct_answer";
  if (key.trim() === "") throw invalidParameters("parameters.correct_answer_key must name an input or testcase column");
  return key;
}
