/**
 * Deeper JSON is refused wherever a client sends it (bodies, uploaded rows): storing or hashing a value walks it
 * recursively (JSON.stringify, canonical JSON, jsonb), and a few thousand levels would overflow the stack there.
 */
export const MAX_JSON_DEPTH = 128;

/** Whether a JSON text may be nested past the limit: nesting needs two characters a level, so short texts never are. */
export const mayBeTooDeep = (text: string): boolean => text.length >= 2 * MAX_JSON_DEPTH;

/** Whether a parsed JSON value is nested deeper than `MAX_JSON_DEPTH` levels, found in one iterative pass. */
export function tooDeep(root: unknown): boolean {
  const stack: [unknown, number][] = [[root, 0]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (value === null || typeof value !== "object") continue;
    if (depth >= MAX_JSON_DEPTH) return true;
    for (const item of Array.isArray(value) ? value : Object.values(value)) stack.push([item, depth + 1]);
  }
  return false;
}
