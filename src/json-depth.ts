/**
 * Deeper JSON is refused wherever a client sends it (bodies, uploaded rows): storing or hashing a value walks it
 * recursively (JSON.stringify, canonical JSON, jsonb), and a few thousand levels would overflow the stack there.
 */
export const MAX_JSON_DEPTH = 128;

/** Whether a JSON text may be nested past the limit: nesting needs two characters a level, so short texts never are. */
export const mayBeTooDeep = (text: string): boolean => text.length >= 2 * MAX_JSON_DEPTH;

/**
 * Whether a parsed JSON value is nested deeper than `MAX_JSON_DEPTH` levels. The walk stops at the limit, so its own
 * recursion is never deeper than that; it allocates nothing (a span's attributes are checked as each is stored).
 */
export const tooDeep = (root: unknown): boolean => root !== null && typeof root === "object" && deeper(root, 0);

function deeper(value: object, depth: number): boolean {
  if (depth >= MAX_JSON_DEPTH) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (item !== null && typeof item === "object" && deeper(item, depth + 1)) return true;
    return false;
  }
  for (const key in value) {
    const item = (value as Record<string, unknown>)[key];
    if (item !== null && typeof item === "object" && deeper(item, depth + 1)) return true;
  }
  return false;
}
