import { isJsonObject } from "../json-data.ts";
import { TemplateError } from "../template-error.ts";
import { budget, reserveItems } from "./limits.ts";

/**
 * The values a Jinja template can hold: JSON data, `undefined` for anything not defined, and the two
 * objects the interpreter makes itself (`loop`, `namespace()`). Their behaviour follows Python's,
 * since templates are written against Python's Jinja.
 */
export class Namespace {
  readonly attributes = new Map<string, unknown>();
}

export class LoopInfo {
  readonly index0: number;
  readonly length: number;
  readonly previtem: unknown;
  readonly nextitem: unknown;

  constructor(index0: number, items: unknown[]) {
    this.index0 = index0;
    this.length = items.length;
    this.previtem = items[index0 - 1];
    this.nextitem = items[index0 + 1];
  }

  get(name: string): unknown {
    switch (name) {
      case "index0": return this.index0;
      case "index": return this.index0 + 1;
      case "revindex": return this.length - this.index0;
      case "revindex0": return this.length - this.index0 - 1;
      case "first": return this.index0 === 0;
      case "last": return this.index0 === this.length - 1;
      case "length": return this.length;
      case "previtem": return this.previtem;
      case "nextitem": return this.nextitem;
      case "depth": return 1;
      case "depth0": return 0;
      default: return undefined;
    }
  }
}

/** A mapping in the Python sense: a JSON object (not a list, not one of our own objects). */
export function isMapping(value: unknown): value is Record<string, unknown> {
  return isJsonObject(value) && !(value instanceof Namespace) && !(value instanceof LoopInfo);
}

export function typeName(value: unknown): string {
  if (value === undefined) return "undefined";
  if (value === null) return "NoneType";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  if (typeof value === "string") return "str";
  if (Array.isArray(value)) return "list";
  if (value instanceof Namespace) return "Namespace";
  if (value instanceof LoopInfo) return "LoopContext";
  return "dict";
}

export function truthy(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === "") return false;
  if (typeof value === "number") return value !== 0 && !Number.isNaN(value);
  if (Array.isArray(value)) return value.length > 0;
  if (isMapping(value)) return Object.keys(value).length > 0;
  return true;
}

/** Python's `str()`: what `{{ value }}` prints. */
export function pyStr(value: unknown): string {
  if (value === undefined) return "";
  if (typeof value === "string") return value;
  return pyRepr(value);
}

/** Python's `repr()`, used inside printed lists and dicts; it stops once the text could not fit the budget. */
export function pyRepr(value: unknown): string {
  return repr(value, budget().meter());
}

function repr(value: unknown, meter: (chars: number) => void): string {
  meter(typeof value === "string" ? value.length + 2 : 2);
  if (value === undefined) return "";
  if (value === null) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "number") return pyNumber(value);
  if (typeof value === "string") return quote(value);
  if (Array.isArray(value)) return `[${value.map((v) => repr(v, meter)).join(", ")}]`;
  if (value instanceof Namespace) return "<Namespace>";
  if (value instanceof LoopInfo) return "<LoopContext>";
  if (isMapping(value)) {
    return `{${Object.entries(value).map(([k, v]) => `${repr(k, meter)}: ${repr(v, meter)}`).join(", ")}}`;
  }
  return "";
}

export function pyNumber(value: number): string {
  if (Number.isNaN(value)) return "nan";
  if (!Number.isFinite(value)) return value > 0 ? "inf" : "-inf";
  return String(value);
}

function quote(text: string): string {
  const q = text.includes("'") && !text.includes('"') ? '"' : "'";
  const body = text.replace(/[\\\n\r\t]/g, (c) => ({ "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" })[c]!);
  return q + (q === "'" ? body.replaceAll("'", "\\'") : body) + q;
}

/** Deep equality; each node compared is a step. */
export function equals(a: unknown, b: unknown): boolean {
  if (typeof a === "string" && typeof b === "string") budget().work(Math.min(a.length, b.length));
  else budget().step();
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => equals(x, b[i]));
  if (isMapping(a) && isMapping(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && equals(a[k], b[k]));
  }
  return false;
}

/** Ordering is defined between numbers, between strings and between lists, as in Python. */
export function compare(a: unknown, b: unknown): number {
  if (typeof a === "string" && typeof b === "string") budget().work(Math.min(a.length, b.length));
  else budget().step();
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "boolean" || typeof b === "boolean") return compare(Number(a), Number(b));
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = compare(a[i], b[i]);
      if (c !== 0) return c;
    }
    return a.length - b.length;
  }
  throw new TemplateError(`Cannot compare '${typeName(a)}' with '${typeName(b)}'`);
}

export function contains(container: unknown, item: unknown): boolean {
  if (typeof container === "string") {
    if (typeof item !== "string") throw new TemplateError(`'in <string>' requires a string, not '${typeName(item)}'`);
    budget().work(container.length);
    return container.includes(item);
  }
  if (Array.isArray(container)) return container.some((x) => equals(x, item));
  if (isMapping(container)) return typeof item === "string" && Object.hasOwn(container, item);
  if (container === undefined) return false;
  throw new TemplateError(`Argument of type '${typeName(container)}' is not iterable`);
}

/**
 * What `for` walks over: list items, mapping keys, string characters; undefined walks over nothing.
 * Whoever asks will walk them: each item is a step.
 */
export function iterate(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) {
    reserveItems(value.length);
    return value;
  }
  if (typeof value === "string") {
    reserveItems(value.length);
    return [...value];
  }
  if (isMapping(value)) {
    const keys = Object.keys(value);
    reserveItems(keys.length);
    return keys;
  }
  throw new TemplateError(`'${typeName(value)}' object is not iterable`);
}
