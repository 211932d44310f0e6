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
 * The canonical JSON of a flat-or-nested record without `key`, and where in that text `key`'s field goes (`at`, for
 * `canonicalWith`): both from one serialisation of the other values (an upload names each row's dedup id from the
 * first and hashes the text with it).
 */
export function canonicalWithout(record: Record<string, unknown>, key: string): { text: string; at: number } {
  const keys = Object.keys(record).filter((k) => k !== key && record[k] !== undefined).sort();
  let text = "{";
  let at = -1;
  for (const k of keys) {
    if (at === -1 && k > key) at = text.length;
    const v = record[k];
    const value = typeof v === "string" ? JSON.stringify(v) : canonicalJson(v);
    text += `${text.length > 1 ? "," : ""}${JSON.stringify(k)}:${value}`;
  }
  text += "}";
  // `at`: where the first field after `key` begins (past its comma), or the closing brace when none follows.
  if (at === -1) at = text.length - 1;
  else if (text[at] === ",") at++;
  return { text, at };
}

/** `text` and `at` of `canonicalWithout` with `key` set to the string `value`, as `canonicalJson` would write it. */
export function canonicalWith(text: string, at: number, key: string, value: string): string {
  const field = `${JSON.stringify(key)}:${JSON.stringify(value)}`;
  if (text.length === 2) return `{${field}}`;
  if (at === text.length - 1) return `${text.slice(0, at)},${field}}`;
  return `${text.slice(0, at)}${field},${text.slice(at)}`;
}
