/**
 * Reading template data. Inputs are JSON, and every lookup goes through own properties only, so a
 * template can never walk into a prototype (`__proto__`, `constructor`) or reach a host function.
 */
export type JsonObject = { [key: string]: unknown };

export const MISSING: unique symbol = Symbol("missing");
export type Found = unknown | typeof MISSING;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function ownProperty(value: unknown, key: string): Found {
  return isJsonObject(value) && Object.hasOwn(value, key) ? value[key] : MISSING;
}

/** A list element by a non-negative decimal index, as dot paths and JSON Pointers spell it. */
export function listElement(value: unknown, segment: string): Found {
  if (!Array.isArray(value) || !/^(0|[1-9]\d*)$/.test(segment)) return MISSING;
  const index = Number(segment);
  return index < value.length ? value[index] : MISSING;
}

/** `a.b.0.c`: a literal key wins over the path; numeric segments index lists. */
export function resolveDotPath(context: JsonObject, path: string): Found {
  if (Object.hasOwn(context, path)) return context[path];
  let current: unknown = context;
  for (const segment of path.split(".")) {
    const next = Array.isArray(current) ? listElement(current, segment) : ownProperty(current, segment);
    if (next === MISSING) return MISSING;
    current = next;
  }
  return current;
}
