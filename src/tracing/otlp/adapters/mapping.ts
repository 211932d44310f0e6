/*
 * How an attribute convention maps onto the `ag.*` model, as the reference's adapters write their tables: exact
 * keys renamed, prefixes renamed with the rest of the key kept, and keys whose value is transformed.
 */

/** Attributes by key, as a span carries them (dotted keys, plain values). */
export type Attributes = Record<string, unknown>;

/** An `ag.*` key and its value, or null when the value gives nothing. */
export type Transform = (value: unknown) => [key: string, value: unknown] | null;

/** One convention's tables. */
export interface Mapping {
  exact?: [from: string, to: string][];
  prefix?: [from: string, to: string][];
  dynamic?: [from: string, transform: Transform][];
}

/**
 * The function that makes the `ag.*` attributes of a mapping out of a span's attributes: an exact key first (a
 * key listed twice keeps its last target, as the reference's tables, which are dicts, do), then a prefix, then a
 * transform.
 */
export function compileMapping(mapping: Mapping): (attributes: Attributes) => Attributes {
  const exact = new Map(mapping.exact ?? []);
  const prefixes = mapping.prefix ?? [];
  const dynamic = new Map(mapping.dynamic ?? []);
  return (attributes) => {
    const out: Attributes = {};
    for (const [key, value] of Object.entries(attributes)) {
      const to = exact.get(key);
      if (to !== undefined) {
        out[to] = value;
        continue;
      }
      const prefix = prefixes.find(([from]) => key.startsWith(from));
      if (prefix) {
        out[prefix[1] + key.slice(prefix[0].length)] = value;
        continue;
      }
      const transform = dynamic.get(key);
      if (!transform) continue;
      try {
        const result = transform(value);
        if (result) out[result[0]] = result[1];
      } catch {
        // A value the transform cannot read contributes nothing, as in the reference.
      }
    }
    return out;
  };
}

/** A JSON text parsed, or the value itself when it is not one. */
export function parsedJson(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
