import { TemplateError } from "../template-error.ts";
import type { Arguments } from "./arguments.ts";
import { joinWithin } from "./limits.ts";
import { equals, isMapping, LoopInfo, pyStr, typeName } from "./values.ts";

/**
 * The few Python methods templates commonly call (`d.items()`, `s.strip()`, `loop.cycle(…)`).
 * A call `x.name(…)` is looked up here by the receiver's type and name; there is no other way to
 * call anything, so a template can never invoke a host function.
 */
type Method = (receiver: never, args: Arguments) => unknown;

const text = (value: unknown) => pyStr(value);

function strip(chars: unknown, side: "both" | "left" | "right") {
  return (s: string): string => {
    if (chars === undefined || chars === null) return side === "left" ? s.trimStart() : side === "right" ? s.trimEnd() : s.trim();
    const set = new Set(text(chars));
    let start = 0;
    let end = s.length;
    if (side !== "right") while (start < end && set.has(s[start])) start++;
    if (side !== "left") while (end > start && set.has(s[end - 1])) end--;
    return s.slice(start, end);
  };
}

function split(s: string, args: Arguments): string[] {
  const separator = args.get(0, "sep");
  const maxsplit = args.get(1, "maxsplit", -1) as number;
  const parts = separator === undefined || separator === null ? s.trim().split(/\s+/).filter(Boolean) : s.split(text(separator));
  if (typeof maxsplit !== "number" || maxsplit < 0 || parts.length <= maxsplit + 1) return parts;
  const joiner = separator === undefined || separator === null ? " " : text(separator);
  return [...parts.slice(0, maxsplit), parts.slice(maxsplit).join(joiner)];
}

const STRING_METHODS = new Map<string, (s: string, args: Arguments) => unknown>([
  ["upper", (s) => s.toUpperCase()],
  ["lower", (s) => s.toLowerCase()],
  ["strip", (s, a) => strip(a.get(0, "chars"), "both")(s)],
  ["lstrip", (s, a) => strip(a.get(0, "chars"), "left")(s)],
  ["rstrip", (s, a) => strip(a.get(0, "chars"), "right")(s)],
  ["split", split],
  ["splitlines", (s) => s.split(/\r?\n/)],
  ["startswith", (s, a) => s.startsWith(text(a.get(0, "prefix")))],
  ["endswith", (s, a) => s.endsWith(text(a.get(0, "suffix")))],
  ["replace", (s, a) => joinWithin(s.split(text(a.get(0, "old"))), text(a.get(1, "new")), (part) => part)],
  ["find", (s, a) => s.indexOf(text(a.get(0, "sub")))],
  ["count", (s, a) => s.split(text(a.get(0, "sub"))).length - 1],
  ["join", (s, a) => {
    const items = a.get(0, "iterable");
    if (!Array.isArray(items)) throw new TemplateError("join expects a list");
    return joinWithin(items, s, text);
  }],
  ["title", (s) => s.toLowerCase().replace(/(^|[^\p{L}\p{N}'])(\p{L})/gu, (_, b: string, l: string) => b + l.toUpperCase())],
  ["capitalize", (s) => s.charAt(0).toUpperCase() + s.slice(1).toLowerCase()],
  ["isdigit", (s) => /^\d+$/.test(s)],
  ["isalpha", (s) => /^\p{L}+$/u.test(s)],
]);

const MAPPING_METHODS = new Map<string, (d: Record<string, unknown>, args: Arguments) => unknown>([
  ["items", (d) => Object.entries(d)],
  ["keys", (d) => Object.keys(d)],
  ["values", (d) => Object.values(d)],
  ["get", (d, a) => {
    const key = text(a.get(0, "key"));
    return Object.hasOwn(d, key) ? d[key] : a.get(1, "default", null);
  }],
]);

const LIST_METHODS = new Map<string, (l: unknown[], args: Arguments) => unknown>([
  ["index", (l, a) => {
    const i = l.findIndex((x) => equals(x, a.positional[0]));
    if (i === -1) throw new TemplateError("list.index(x): x not in list");
    return i;
  }],
  ["count", (l, a) => l.filter((x) => equals(x, a.positional[0])).length],
]);

export function callMethod(receiver: unknown, name: string, args: Arguments): unknown {
  let method: Method | undefined;
  if (typeof receiver === "string") method = STRING_METHODS.get(name) as Method | undefined;
  else if (Array.isArray(receiver)) method = LIST_METHODS.get(name) as Method | undefined;
  else if (isMapping(receiver)) method = MAPPING_METHODS.get(name) as Method | undefined;
  else if (receiver instanceof LoopInfo && name === "cycle") {
    const options = args.positional;
    if (options.length === 0) throw new TemplateError("loop.cycle() needs at least one argument");
    return options[receiver.index0 % options.length];
  }
  if (!method) throw new TemplateError(`'${typeName(receiver)}' has no callable '${name}'`);
  return method(receiver as never, args);
}
