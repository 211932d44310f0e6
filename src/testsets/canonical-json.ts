/**
 * RFC 8785 (JCS) canonical JSON: object keys sorted by UTF-16 code units, no whitespace, numbers and
 * strings as ECMAScript serialises them (which is what JCS specifies). Used to hash testcase content.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    if (typeof value === "number" && !Number.isFinite(value)) throw new TypeError("Non-finite numbers have no JSON form");
    return JSON.stringify(value ?? null);
  }
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(",")}]`;
  const record = value as Record<string, unknown>;
  // Array.prototype.sort without a comparator orders strings by UTF-16 code units, as JCS wants.
  const keys = Object.keys(record).sort();
  let out = "{";
  for (const k of keys) {
    const v = record[k];
    if (v === undefined) continue;
    // Flat string rows (every CSV row) need no recursion.
    out += `${out.length > 1 ? "," : ""}${JSON.stringify(k)}:${typeof v === "string" ? JSON.stringify(v) : canonicalJson(v)}`;
  }
  return `${out}}`;
}

/**
 * The canonical JSON of a flat-or-nested record without `key`, and a function giving it with `key`
 * set to a string: both from one serialisation of the other values (an upload names each row's
 * dedup id from the first and hashes the second).
 */
export function canonicalWithout(record: Record<string, unknown>, key: string): { text: string; with(value: string): string } {
  const keys = Object.keys(record).filter((k) => k !== key && record[k] !== undefined).sort();
  const parts = keys.map((k) => {
    const v = record[k];
    return `${JSON.stringify(k)}:${typeof v === "string" ? JSON.stringify(v) : canonicalJson(v)}`;
  });
  const at = keys.findIndex((k) => k > key);
  const text = `{${parts.join(",")}}`;
  return {
    text,
    with(value) {
      const field = `${JSON.stringify(key)}:${JSON.stringify(value)}`;
      if (at === -1) return parts.length ? `${text.slice(0, -1)},${field}}` : `{${field}}`;
      return `{${[...parts.slice(0, at), field, ...parts.slice(at)].join(",")}}`;
    },
  };
}
