import { TemplateError } from "../template-error.ts";
import type { Arguments } from "./arguments.ts";
import { compare, contains, equals, isMapping } from "./values.ts";

/** Jinja's `is` tests. */
type Test = (value: unknown, args: Arguments) => boolean;

const argument = (args: Arguments) => args.positional[0];
const isInteger = (v: unknown) => typeof v === "number" && Number.isInteger(v);

function divisible(value: unknown, args: Arguments): boolean {
  const by = argument(args);
  if (typeof value !== "number" || typeof by !== "number" || by === 0) throw new TemplateError("divisibleby expects two non-zero numbers");
  return value % by === 0;
}

export const TESTS = new Map<string, Test>([
  ["defined", (v) => v !== undefined],
  ["undefined", (v) => v === undefined],
  ["none", (v) => v === null],
  ["boolean", (v) => typeof v === "boolean"],
  ["true", (v) => v === true],
  ["false", (v) => v === false],
  ["number", (v) => typeof v === "number"],
  ["integer", isInteger],
  ["float", (v) => typeof v === "number" && !Number.isInteger(v)],
  ["string", (v) => typeof v === "string"],
  ["mapping", isMapping],
  ["sequence", (v) => Array.isArray(v) || typeof v === "string" || isMapping(v)],
  ["iterable", (v) => Array.isArray(v) || typeof v === "string" || isMapping(v)],
  ["callable", () => false],
  ["even", (v) => isInteger(v) && (v as number) % 2 === 0],
  ["odd", (v) => isInteger(v) && Math.abs((v as number) % 2) === 1],
  ["divisibleby", divisible],
  ["eq", (v, a) => equals(v, argument(a))],
  ["ne", (v, a) => !equals(v, argument(a))],
  ["lt", (v, a) => compare(v, argument(a)) < 0],
  ["le", (v, a) => compare(v, argument(a)) <= 0],
  ["gt", (v, a) => compare(v, argument(a)) > 0],
  ["ge", (v, a) => compare(v, argument(a)) >= 0],
  ["in", (v, a) => contains(argument(a), v)],
  ["lower", (v) => typeof v === "string" && v === v.toLowerCase()],
  ["upper", (v) => typeof v === "string" && v === v.toUpperCase()],
  ["sameas", (v, a) => v === argument(a)],
  ["escaped", () => false],
]);
for (const [alias, name] of [["equalto", "eq"], ["==", "eq"], ["!=", "ne"], ["lessthan", "lt"], ["<", "lt"], ["<=", "le"], ["greaterthan", "gt"], [">", "gt"], [">=", "ge"]]) {
  TESTS.set(alias, TESTS.get(name)!);
}
