import { reserveItems } from "./limits.ts";
import { isMapping, LoopInfo, Namespace } from "./values.ts";

/**
 * `x.name` and `x[key]`. Only data is reachable: own keys of mappings, list and string positions,
 * and the fields of `loop` and `namespace()`. Nothing else has attributes, so no path leads to a
 * prototype, a constructor or a function.
 */
export function getAttribute(object: unknown, name: string): unknown {
  if (object instanceof Namespace) return object.attributes.get(name);
  if (object instanceof LoopInfo) return object.get(name);
  if (isMapping(object)) return Object.hasOwn(object, name) ? object[name] : undefined;
  if (/^\d+$/.test(name)) return getItem(object, Number(name));
  return undefined;
}

export function getItem(object: unknown, key: unknown): unknown {
  if (typeof key === "number" && Number.isInteger(key) && (Array.isArray(object) || typeof object === "string")) {
    const index = key < 0 ? object.length + key : key;
    return index >= 0 && index < object.length ? object[index] : undefined;
  }
  if (typeof key === "string" || typeof key === "number") return getAttributeByKey(object, String(key));
  return undefined;
}

function getAttributeByKey(object: unknown, key: string): unknown {
  if (object instanceof Namespace) return object.attributes.get(key);
  if (isMapping(object)) return Object.hasOwn(object, key) ? object[key] : undefined;
  return undefined;
}

export function sliceOf(object: unknown, start?: number, stop?: number, step = 1): unknown {
  if (!Array.isArray(object) && typeof object !== "string") return undefined;
  if (step === 0) return undefined;
  reserveItems(object.length);
  const items = typeof object === "string" ? [...object] : object;
  const n = items.length;
  const bound = (i: number | undefined, fallback: number, low: number, high: number) =>
    i === undefined ? fallback : Math.min(Math.max(i < 0 ? n + i : i, low), high);
  const out: unknown[] = [];
  if (step > 0) for (let i = bound(start, 0, 0, n); i < bound(stop, n, 0, n); i += step) out.push(items[i]);
  else for (let i = bound(start, n - 1, -1, n - 1); i > bound(stop, -1, -1, n - 1); i += step) out.push(items[i]);
  return typeof object === "string" ? out.join("") : out;
}
