/** Deep operations on plain JSON values, used by revision deltas. Inputs are never mutated. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const isObject = (v: unknown): v is Record<string, Json> => typeof v === "object" && v !== null && !Array.isArray(v);

export function deepMerge(base: Json, patch: Json): Json {
  if (!isObject(base) || !isObject(patch)) return structuredClone(patch);
  const out: Record<string, Json> = { ...base };
  for (const [k, v] of Object.entries(patch)) out[k] = k in base ? deepMerge(base[k], v) : structuredClone(v);
  return out;
}

/** Replaces the value at `path` (created along the way), or removes it when `value` is undefined. */
export function setIn(root: Json, path: (string | number)[], value: Json | undefined): Json {
  if (path.length === 0) return value === undefined ? null : structuredClone(value);
  const [head, ...rest] = path;
  if (Array.isArray(root) && typeof head === "number") {
    const copy = [...root];
    if (rest.length === 0 && value === undefined) copy.splice(head, 1);
    else copy[head] = setIn(copy[head] ?? null, rest, value);
    return copy;
  }
  const obj: Record<string, Json> = isObject(root) ? { ...root } : {};
  if (rest.length === 0 && value === undefined) delete obj[String(head)];
  else obj[String(head)] = setIn(obj[String(head)] ?? null, rest, value);
  return obj;
}

export function getIn(root: Json, path: (string | number)[]): Json | undefined {
  let cur: Json | undefined = root;
  for (const seg of path) {
    if (Array.isArray(cur) && typeof seg === "number") cur = cur[seg];
    else if (isObject(cur)) cur = cur[String(seg)];
    else return undefined;
  }
  return cur;
}

/** `a.b.0.c` → ["a", "b", 0, "c"]. */
export const dotPath = (p: string): (string | number)[] => p.split(".").map((s) => (/^\d+$/.test(s) ? Number(s) : s));
