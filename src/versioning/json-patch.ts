import type { Json } from "./json-path.ts";

/** One RFC 6902 operation. */
export type PatchOperation =
  | { op: "add"; path: string; value: Json }
  | { op: "remove"; path: string }
  | { op: "replace"; path: string; value: Json };

const pointer = (path: (string | number)[]) => path.map((s) => "/" + String(s).replace(/~/g, "~0").replace(/\//g, "~1")).join("");
const isObject = (v: unknown): v is Record<string, Json> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A JSON Patch that turns `from` into `to`. Objects are compared key by key and lists item by item
 * (shared positions first, then the tail is added or removed from the end), so the patch names
 * exactly what changed.
 */
export function diffJson(from: Json | undefined, to: Json | undefined, path: (string | number)[] = []): PatchOperation[] {
  if (from === undefined && to === undefined) return [];
  if (from === undefined) return [{ op: "add", path: pointer(path), value: to as Json }];
  if (to === undefined) return [{ op: "remove", path: pointer(path) }];
  if (isObject(from) && isObject(to)) {
    const ops: PatchOperation[] = [];
    for (const key of Object.keys(from)) if (!(key in to)) ops.push({ op: "remove", path: pointer([...path, key]) });
    for (const [key, value] of Object.entries(to)) ops.push(...diffJson(from[key], value, [...path, key]));
    return ops;
  }
  if (Array.isArray(from) && Array.isArray(to)) {
    const ops: PatchOperation[] = [];
    const shared = Math.min(from.length, to.length);
    for (let i = 0; i < shared; i++) ops.push(...diffJson(from[i], to[i], [...path, i]));
    for (let i = from.length - 1; i >= shared; i--) ops.push({ op: "remove", path: pointer([...path, i]) });
    for (let i = shared; i < to.length; i++) ops.push({ op: "add", path: pointer([...path, "-"]), value: to[i] });
    return ops;
  }
  return JSON.stringify(from) === JSON.stringify(to) ? [] : [{ op: "replace", path: pointer(path), value: to }];
}
