/**
 * What PostgreSQL's jsonb cannot hold, kept anyway. jsonb refuses `\u0000` and unpaired surrogates
 * (`\ud800`) in strings and object keys, though JSON and JavaScript allow them. Before JSON text goes
 * into a jsonb column, each is written as ESC (U+0001) and a code, and ESC itself as ESC "1":
 *
 *   U+0000 → ESC "0"    ESC → ESC "1"    unpaired surrogate U+DXXX → ESC "s" "dxxx" (hex)
 *
 * Every string holding ESC is rewritten, so an escape never meets a real ESC: the mapping is one to
 * one, and `fromJsonb` restores exactly what was given. Strings without ESC, NUL or an unpaired
 * surrogate (nearly all) are stored and read as they are.
 */
const ESC = "\u0001";

// One JSON escape at a time, left to right, so that `\\u0000` (an escaped backslash, then "u0000")
// is seen as the pair `\\` and never as `\u0000`. JSON.stringify writes these escapes in lower case.
const ESCAPES = /\\(?:\\|u000[01]|ud[89a-f][0-9a-f]{2})/g;
const NEEDS_ESCAPE = /\\u(?:000[01]|d[89a-f])/;

function escapeOne(escape: string): string {
  if (escape === "\\\\") return escape;
  if (escape === "\\u0000") return "\\u00010";
  if (escape === "\\u0001") return "\\u00011";
  return `\\u0001s${escape.slice(2)}`;
}

/** JSON text (as JSON.stringify writes it) made storable in jsonb; `fromJsonb` undoes it on the parsed value. */
export function toJsonbText(text: string): string;
export function toJsonbText(text: string | null): string | null;
export function toJsonbText(text: string | null): string | null {
  if (text === null || !NEEDS_ESCAPE.test(text)) return text;
  return text.replace(ESCAPES, escapeOne);
}

/** A value as JSON text for a jsonb parameter or COPY field (null stays SQL NULL). */
export const jsonbText = (value: unknown): string | null =>
  value === undefined || value === null ? null : toJsonbText(JSON.stringify(value));

const UNESCAPES = /\u0001(?:s([0-9a-f]{4})|([01]))/g;
const hex4 = (c: string) => c.charCodeAt(0).toString(16);
const STRING_ESCAPES = /[\u0000\u0001]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** One string (a key a record stores as data, say) as `toJsonbText` would store it. */
export const toJsonbString = (s: string): string =>
  s.replace(STRING_ESCAPES, (c) => (c === "\u0000" ? `${ESC}0` : c === ESC ? `${ESC}1` : `${ESC}s${hex4(c)}`));

/** One string stored by `toJsonbText` or `toJsonbString`, as it was given. */
export const fromJsonbString = (s: string): string => unescapeString(s);

const unescapeString = (s: string): string =>
  s.includes(ESC) ? s.replace(UNESCAPES, (_, surrogate: string | undefined, code: string) =>
    surrogate ? String.fromCharCode(parseInt(surrogate, 16)) : code === "0" ? "\u0000" : ESC) : s;

/**
 * A value read from a jsonb column written with `toJsonbText`, as it was given. Returns the same
 * object when nothing in it was escaped (no copy on the common path).
 */
export function fromJsonb<T>(value: T): T {
  if (typeof value === "string") return unescapeString(value) as T;
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const restored = fromJsonb(value[i]);
      if (restored !== value[i]) (out ??= value.slice())[i] = restored;
    }
    return (out ?? value) as T;
  }
  let out: Record<string, unknown> | null = null;
  const record = value as Record<string, unknown>;
  for (const key in record) {
    const v = record[key];
    const restored = fromJsonb(v);
    const name = key.includes(ESC) ? unescapeString(key) : key;
    if (name === key && restored === v && !out) continue;
    if (!out) {
      // Rebuilt in the same key order, from the first key on.
      out = {};
      for (const k in record) {
        if (k === key) break;
        Object.defineProperty(out, k, { value: record[k], enumerable: true, writable: true, configurable: true });
      }
    }
    // A "__proto__" key read from JSON is an own property; an assignment would set the prototype.
    Object.defineProperty(out, name, { value: restored, enumerable: true, writable: true, configurable: true });
  }
  return (out ?? value) as T;
}
