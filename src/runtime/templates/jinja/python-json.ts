import { TemplateError } from "../template-error.ts";
import { budget } from "./limits.ts";
import { isMapping } from "./values.ts";

/**
 * Python's `json.dumps(value, sort_keys=True, indent=…)` as Jinja's `tojson` calls it: `", "` and
 * `": "` separators, sorted keys, non-ASCII escaped.
 */
export function pythonJson(value: unknown, indent?: unknown): string {
  const step = typeof indent === "number" ? " ".repeat(Math.min(Math.max(0, indent), 16)) : typeof indent === "string" ? indent : null;
  return dump(value, step, "", budget().meter());
}

function dump(value: unknown, step: string | null, current: string, meter: (chars: number) => void): string {
  meter(typeof value === "string" ? value.length + 2 : 2 + current.length);
  if (value === undefined || value === null) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : Number.isNaN(value) ? "NaN" : value > 0 ? "Infinity" : "-Infinity";
  if (typeof value === "string") return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  const inner = step === null ? "" : current + step;
  const open = step === null ? "" : `\n${inner}`;
  const close = step === null ? "" : `\n${current}`;
  const comma = step === null ? ", " : `,\n${inner}`;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[${open}${value.map((v) => dump(v, step, inner, meter)).join(comma)}${close}]`;
  }
  if (isMapping(value)) {
    const keys = Object.keys(value).sort();
    if (keys.length === 0) return "{}";
    const entries = keys.map((k) => `${dump(k, step, inner, meter)}: ${dump(value[k], step, inner, meter)}`);
    return `{${open}${entries.join(comma)}${close}}`;
  }
  throw new TemplateError("Object of this type is not JSON serializable");
}
