/**
 * Deeper JSON is refused wherever a client sends it (bodies, uploaded rows): storing or hashing a value walks it
 * recursively (JSON.stringify, canonical JSON, jsonb), and a few thousand levels would overflow the stack there.
 */
export const MAX_JSON_DEPTH = 128;

/** Whether a JSON text may be nested past the limit: nesting needs two characters a level, so short texts never are. */
export const mayBeTooDeep = (text: string): boolean => text.length >= 2 * MAX_JSON_DEPTH;

/** Whether a parsed JSON value is nested deeper than `MAX_JSON_DEPTH` levels, found in one iterative pass. */
export function tooDeep(root: unknown): boolean {
  if (root === null || typeof root !== "object") return false;
  // Two stacks of objects and their depths: leaves are never pushed (most values of a span's attributes are).
  const values: object[] = [root];
  const depths: number[] = [0];
  while (values.length > 0) {
    const value = values.pop()!;
    const depth = depths.pop()!;
    if (depth >= MAX_JSON_DEPTH) return true;
    for (const item of Array.isArray(value) ? value : Object.values(value)) {
      if (item !== null && typeof item === "object") {
        values.push(item);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}
