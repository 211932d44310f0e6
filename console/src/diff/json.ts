/**
 * A structured diff of two JSON values: every path (`/parameters/prompt/llm_config/model`) whose value was
 * added, removed or changed. Objects are compared key by key, arrays index by index; a value whose type
 * changes (object → string) is one change at its path.
 */
export type JsonChange =
  | { op: "added"; path: string; to: unknown }
  | { op: "removed"; path: string; from: unknown }
  | { op: "changed"; path: string; from: unknown; to: unknown };

const isObject = (value: unknown): value is Record<string, unknown> => !!value && typeof value === "object" && !Array.isArray(value);
const escape = (key: string) => key.replace(/~/g, "~0").replace(/\//g, "~1");

export function diffJson(before: unknown, after: unknown, path = ""): JsonChange[] {
  if (before === undefined && after === undefined) return [];
  if (before === undefined) return [{ op: "added", path: path || "/", to: after }];
  if (after === undefined) return [{ op: "removed", path: path || "/", from: before }];
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return keys.flatMap((key) => diffJson(before[key], after[key], `${path}/${escape(key)}`));
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const length = Math.max(before.length, after.length);
    return Array.from({ length }, (_, i) => diffJson(before[i], after[i], `${path}/${i}`)).flat();
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [{ op: "changed", path: path || "/", from: before, to: after }];
}
