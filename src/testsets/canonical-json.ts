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
