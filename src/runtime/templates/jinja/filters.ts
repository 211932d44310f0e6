import { TemplateError } from "../template-error.ts";
import { getAttribute } from "./access.ts";
import { Arguments } from "./arguments.ts";
import { boundedCount, joinWithin, reserveChars, reserveItems } from "./limits.ts";
import { pythonJson } from "./python-json.ts";
import { compare, equals, isMapping, iterate, pyStr, truthy, typeName } from "./values.ts";

/** What a filter may ask of the interpreter: other filters and tests, by name. */
export interface FilterHelpers {
  filter(name: string, value: unknown, args: Arguments): unknown;
  test(name: string, value: unknown, args: Arguments): boolean;
}

type Filter = (value: unknown, args: Arguments, helpers: FilterHelpers) => unknown;

const text = (value: unknown) => pyStr(value);
const list = (value: unknown) => iterate(value);
const length = (value: unknown) => (value === undefined ? 0 : isMapping(value) ? Object.keys(value).length : list(value).length);

function numberOf(value: unknown, what: string): number {
  if (typeof value === "number") return value;
  if (typeof value === "boolean") return Number(value);
  throw new TemplateError(`${what} expects a number, not '${typeName(value)}'`);
}

/** `attribute='a.b'` or an integer position, as Jinja's `make_attrgetter` reads it. */
function attributeGetter(attribute: unknown): (item: unknown) => unknown {
  if (attribute === undefined || attribute === null) return (item) => item;
  const parts = typeof attribute === "number" ? [String(attribute)] : String(attribute).split(".");
  return (item) => parts.reduce<unknown>((current, part) => getAttribute(current, part), item);
}

function sortKey(caseSensitive: boolean) {
  return (value: unknown) => (!caseSensitive && typeof value === "string" ? value.toLowerCase() : value);
}

function selectBy(expect: boolean, byAttribute: boolean): Filter {
  return (value, args, helpers) => {
    const get = byAttribute ? attributeGetter(args.get(0, "attribute")) : (x: unknown) => x;
    const offset = byAttribute ? 1 : 0;
    const testName = args.positional[offset];
    return list(value).filter((item) => {
      const subject = get(item);
      const passed = testName === undefined ? truthy(subject) : helpers.test(String(testName), subject, new Arguments(args.rest(offset + 1)));
      return passed === expect;
    });
  };
}

function htmlEscape(value: unknown): string {
  return text(value).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&#34;", "'": "&#39;" })[c]!);
}

function titleCase(value: string): string {
  return value.toLowerCase().replace(/(^|[^\p{L}\p{N}'])(\p{L})/gu, (_, before: string, letter: string) => before + letter.toUpperCase());
}

function roundTo(value: number, precision: number, method: string): number {
  const factor = 10 ** precision;
  const scaled = value * factor;
  const rounded = method === "ceil" ? Math.ceil(scaled) : method === "floor" ? Math.floor(scaled) : Math.sign(scaled) * Math.round(Math.abs(scaled));
  return rounded / factor;
}

function truncate(value: unknown, args: Arguments): string {
  const s = text(value);
  const length = boundedCount(numberOf(args.get(0, "length", 255), "truncate"), "truncate length");
  const killwords = truthy(args.get(1, "killwords", false));
  const end = text(args.get(2, "end", "..."));
  const leeway = numberOf(args.get(3, "leeway", 5), "truncate");
  if (s.length <= length + leeway) return s;
  if (killwords) return s.slice(0, length - end.length) + end;
  const cut = s.slice(0, length - end.length);
  const space = cut.lastIndexOf(" ");
  return (space === -1 ? cut : cut.slice(0, space)) + end;
}

export const FILTERS = new Map<string, Filter>([
  ["abs", (v) => Math.abs(numberOf(v, "abs"))],
  ["attr", (v, a) => getAttribute(v, text(a.get(0, "name")))],
  ["capitalize", (v) => { const s = text(v); return s.charAt(0).toUpperCase() + s.slice(1).toLowerCase(); }],
  ["center", (v, a) => {
    const s = text(v);
    const width = boundedCount(numberOf(a.get(0, "width", 80), "center"), "center width");
    const left = Math.floor(Math.max(0, width - s.length) / 2);
    return s.padStart(s.length + left).padEnd(width);
  }],
  ["count", length],
  ["default", (v, a) => (v === undefined || (truthy(a.get(1, "boolean", false)) && !truthy(v)) ? a.get(0, "default_value", "") : v)],
  ["dictsort", (v, a) => {
    if (!isMapping(v)) throw new TemplateError("dictsort expects a mapping");
    const byValue = a.get(1, "by", "key") === "value";
    const key = sortKey(truthy(a.get(0, "case_sensitive", false)));
    const sorted = Object.entries(v).sort((x, y) => compare(key(byValue ? x[1] : x[0]), key(byValue ? y[1] : y[0])));
    return truthy(a.get(2, "reverse", false)) ? sorted.reverse() : sorted;
  }],
  ["escape", htmlEscape],
  ["first", (v) => list(v)[0]],
  ["float", (v, a) => {
    const n = typeof v === "number" ? v : parseFloat(text(v));
    return Number.isNaN(n) ? a.get(0, "default", 0) : n;
  }],
  ["forceescape", htmlEscape],
  ["indent", (v, a) => {
    const width = a.get(0, "width", 4);
    const pad = typeof width === "string" ? width : " ".repeat(boundedCount(numberOf(width, "indent"), "indent width"));
    const first = truthy(a.get(1, "first", false));
    const blank = truthy(a.get(2, "blank", false));
    const lines = text(v).split("\n");
    const padded = (line: string, i: number) => ((i > 0 || first) && (blank || line.trim() !== "") ? pad + line : line);
    let index = 0;
    return joinWithin(lines, "\n", (line) => padded(line, index++));
  }],
  ["int", (v, a) => {
    if (typeof v === "number") return Math.trunc(v);
    if (typeof v === "boolean") return Number(v);
    const n = parseInt(text(v).trim(), numberOf(a.get(1, "base", 10), "int"));
    return Number.isNaN(n) ? a.get(0, "default", 0) : n;
  }],
  ["items", (v) => {
    if (v === undefined) return [];
    if (!isMapping(v)) throw new TemplateError("items expects a mapping");
    return Object.entries(v);
  }],
  ["join", (v, a) => {
    const get = attributeGetter(a.get(1, "attribute"));
    return joinWithin(list(v), text(a.get(0, "d", "")), (item) => text(get(item)));
  }],
  ["last", (v) => list(v).at(-1)],
  ["length", length],
  ["list", (v) => [...list(v)]],
  ["lower", (v) => text(v).toLowerCase()],
  ["map", (v, a, h) => {
    const name = a.positional[0];
    if (name === undefined) {
      const get = attributeGetter(a.keywords.get("attribute"));
      const fallback = a.keywords.get("default");
      return list(v).map((item) => get(item) ?? fallback);
    }
    const rest = new Arguments(a.rest(1), new Map([...a.keywords]));
    return list(v).map((item) => h.filter(String(name), item, rest));
  }],
  ["max", (v, a) => {
    const get = attributeGetter(a.get(1, "attribute"));
    const key = sortKey(truthy(a.get(0, "case_sensitive", false)));
    return list(v).reduce<unknown>((best, x) => (best === undefined || compare(key(get(x)), key(get(best))) > 0 ? x : best), undefined);
  }],
  ["min", (v, a) => {
    const get = attributeGetter(a.get(1, "attribute"));
    const key = sortKey(truthy(a.get(0, "case_sensitive", false)));
    return list(v).reduce<unknown>((best, x) => (best === undefined || compare(key(get(x)), key(get(best))) < 0 ? x : best), undefined);
  }],
  ["reject", selectBy(false, false)],
  ["rejectattr", selectBy(false, true)],
  ["replace", (v, a) => {
    const s = text(v);
    const old = text(a.get(0, "old"));
    const replacement = text(a.get(1, "new"));
    const count = a.get(2, "count");
    const parts = s.split(old);
    if (count === undefined || count === null) return joinWithin(parts, replacement, (part) => part);
    const n = boundedCount(numberOf(count, "replace"), "replace count");
    const head = joinWithin(parts.slice(0, n + 1), replacement, (part) => part);
    return head + (parts.length > n + 1 ? old + parts.slice(n + 1).join(old) : "");
  }],
  ["reverse", (v) => (typeof v === "string" ? [...v].reverse().join("") : [...list(v)].reverse())],
  ["round", (v, a) => roundTo(numberOf(v, "round"), numberOf(a.get(0, "precision", 0), "round"), text(a.get(1, "method", "common")))],
  ["safe", (v) => v],
  ["select", selectBy(true, false)],
  ["selectattr", selectBy(true, true)],
  ["sort", (v, a) => {
    const get = attributeGetter(a.get(2, "attribute"));
    const key = sortKey(truthy(a.get(1, "case_sensitive", false)));
    const items = list(v);
    reserveItems(items.length * Math.ceil(Math.log2(items.length + 1)));
    const sorted = [...items].sort((x, y) => compare(key(get(x)), key(get(y))));
    return truthy(a.get(0, "reverse", false)) ? sorted.reverse() : sorted;
  }],
  ["string", (v) => text(v)],
  ["sum", (v, a) => {
    const get = attributeGetter(a.get(0, "attribute"));
    return list(v).reduce<number>((total, x) => total + numberOf(get(x), "sum"), numberOf(a.get(1, "start", 0), "sum"));
  }],
  ["title", (v) => titleCase(text(v))],
  ["tojson", (v, a) => pythonJson(v, a.get(0, "indent")).replace(/[<>&']/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`)],
  ["trim", (v, a) => {
    const chars = a.get(0, "chars");
    const s = text(v);
    if (chars === undefined || chars === null) return s.trim();
    const set = new Set(text(chars));
    let start = 0;
    let end = s.length;
    while (start < end && set.has(s[start])) start++;
    while (end > start && set.has(s[end - 1])) end--;
    return s.slice(start, end);
  }],
  ["truncate", truncate],
  ["unique", (v, a) => {
    const key = sortKey(truthy(a.get(0, "case_sensitive", false)));
    const get = attributeGetter(a.get(1, "attribute"));
    // Scalars are told apart by a typed key in O(1); lists and mappings compare deeply against the others seen.
    const scalars = new Set<string>();
    const seen: unknown[] = [];
    return list(v).filter((x) => {
      const k = key(get(x));
      if (typeof k !== "object" || k === null) {
        const id = `${typeof k}:${String(k)}`;
        if (scalars.has(id)) return false;
        scalars.add(id);
        return true;
      }
      reserveItems(seen.length);
      if (seen.some((s) => equals(s, k))) return false;
      seen.push(k);
      return true;
    });
  }],
  ["upper", (v) => text(v).toUpperCase()],
  ["wordcount", (v) => (text(v).match(/\w+/gu) ?? []).length],
]);
FILTERS.set("d", FILTERS.get("default")!);
FILTERS.set("e", htmlEscape);
