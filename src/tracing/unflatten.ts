import { setOwn } from "./own-property.ts";

/**
 * Dotted keys as nested objects, as the reference's `unmarshall_attributes` does: `a.b` → 1 and `a.c.0` → 2 make
 * `{a: {b: 1, c: [2]}}` (a numeric part makes an array). Keys are taken in the Map's order: one that meets a value
 * already set at one of its prefixes is left out, as there.
 */
export function unflatten(flat: Map<string, unknown>): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, value] of flat) {
    const parts = key.split(".");
    let current: unknown = root;
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      const index = isIndex(part) ? Number(part) : null;
      const last = i === parts.length - 1;
      const container = current as Record<string | number, unknown>;
      const fits = Array.isArray(current) ? index !== null : isPlainObject(current);
      if (!fits) break;
      if (Array.isArray(current)) while (current.length <= index!) current.push(last ? null : blank(parts[i + 1]));
      const slot = Array.isArray(current) ? index! : part;
      if (last) {
        setOwn(container, slot, value);
      } else {
        if (!Object.hasOwn(container, slot) || container[slot] === null) setOwn(container, slot, blank(parts[i + 1]));
        current = container[slot];
      }
    }
  }
  return root;
}

// A first character that is no digit settles most parts without the regular expression.
const isIndex = (part: string) => part.length > 0 && part.charCodeAt(0) <= 57 && /^\d+$/.test(part);
const blank = (next: string | undefined) => (next !== undefined && isIndex(next) ? [] : {});
const isPlainObject = (value: unknown) => typeof value === "object" && value !== null && !Array.isArray(value);
