import type { JsonObject } from "../json-data.ts";
import type { RenderBudget } from "../render-budget.ts";
import { TemplateError } from "../template-error.ts";
import { getAttribute, getItem, sliceOf } from "./access.ts";
import { Arguments } from "./arguments.ts";
import type { Expr, Stmt } from "./ast.ts";
import { FILTERS, type FilterHelpers } from "./filters.ts";
import { reserveChars, reserveItems, withBudget } from "./limits.ts";
import { callMethod } from "./methods.ts";
import { TESTS } from "./tests.ts";
import { compare, contains, equals, isMapping, iterate, LoopInfo, Namespace, pyStr, truthy, typeName } from "./values.ts";

/** Variables set by the template; a `for` body gets its own scope, as in Jinja. */
class Scope {
  readonly variables = new Map<string, unknown>();
  readonly parent: Scope | null;

  constructor(parent: Scope | null) {
    this.parent = parent;
  }

  lookup(name: string): { found: boolean; value?: unknown } {
    for (let scope: Scope | null = this; scope; scope = scope.parent) {
      if (scope.variables.has(name)) return { found: true, value: scope.variables.get(name) };
    }
    return { found: false };
  }
}

/** Walks the syntax tree over JSON data. Functions are never values; see `callMethod` and `GLOBALS`. */
export class Interpreter implements FilterHelpers {
  readonly context: JsonObject;
  readonly budget: RenderBudget;

  constructor(context: JsonObject, budget: RenderBudget) {
    this.context = context;
    this.budget = budget;
  }

  render(body: Stmt[]): string {
    return withBudget(this.budget, () => this.execute(body, new Scope(null)));
  }

  tick(): void {
    this.budget.step();
  }

  /** Text is charged to the output as each statement writes it (a `set` block's too: it is work all the same). */
  execute(body: Stmt[], scope: Scope): string {
    let output = "";
    for (const stmt of body) {
      this.tick();
      output += this.statement(stmt, scope);
    }
    return output;
  }

  statement(stmt: Stmt, scope: Scope): string {
    switch (stmt.type) {
      case "text":
        return this.budget.emit(stmt.text);
      case "output":
        return this.budget.emit(pyStr(this.evaluate(stmt.expr, scope)));
      case "if": {
        const branch = stmt.branches.find((b) => truthy(this.evaluate(b.test, scope)));
        return this.execute(branch ? branch.body : stmt.otherwise, scope);
      }
      case "for":
        return this.loop(stmt, scope);
      case "set": {
        const value = this.evaluate(stmt.value, scope);
        if (stmt.attribute === undefined) {
          scope.variables.set(stmt.target, value);
          return "";
        }
        const target = this.variable(stmt.target, scope);
        if (!(target instanceof Namespace)) throw new TemplateError(`Cannot assign attribute on '${stmt.target}': only namespace() objects are mutable`);
        target.attributes.set(stmt.attribute, value);
        return "";
      }
      case "setBlock":
        scope.variables.set(stmt.target, this.execute(stmt.body, new Scope(scope)));
        return "";
    }
  }

  loop(stmt: Extract<Stmt, { type: "for" }>, scope: Scope): string {
    const all = iterate(this.evaluate(stmt.iterable, scope));
    const bind = (into: Scope, item: unknown) => {
      if (stmt.targets.length === 1) {
        into.variables.set(stmt.targets[0], item);
        return;
      }
      const parts = Array.isArray(item) ? item : typeof item === "string" ? [...item] : null;
      if (!parts || parts.length !== stmt.targets.length) throw new TemplateError(`Cannot unpack '${typeName(item)}' into ${stmt.targets.length} variables`);
      stmt.targets.forEach((name, i) => into.variables.set(name, parts[i]));
    };
    const items = stmt.filter
      ? all.filter((item) => {
          this.tick();
          const probe = new Scope(scope);
          bind(probe, item);
          return truthy(this.evaluate(stmt.filter!, probe));
        })
      : all;
    if (items.length === 0) return this.execute(stmt.otherwise, new Scope(scope));
    let output = "";
    items.forEach((item, index) => {
      this.tick();
      const iteration = new Scope(scope);
      bind(iteration, item);
      iteration.variables.set("loop", new LoopInfo(index, items));
      output += this.execute(stmt.body, iteration);
    });
    return output;
  }

  variable(name: string, scope: Scope): unknown {
    const local = scope.lookup(name);
    if (local.found) return local.value;
    return Object.hasOwn(this.context, name) ? this.context[name] : undefined;
  }

  evaluate(expr: Expr, scope: Scope): unknown {
    this.tick();
    return this.expression(expr, scope);
  }

  expression(expr: Expr, scope: Scope): unknown {
    switch (expr.type) {
      case "literal":
        return expr.value;
      case "name":
        return this.variable(expr.name, scope);
      case "list":
        reserveItems(expr.items.length);
        return expr.items.map((item) => this.evaluate(item, scope));
      case "dict":
        return Object.fromEntries(expr.entries.map(([k, v]) => {
          const key = this.evaluate(k, scope);
          if (typeof key !== "string" && typeof key !== "number") throw new TemplateError("Dictionary keys must be strings or numbers");
          return [String(key), this.evaluate(v, scope)];
        }));
      case "attr":
        return getAttribute(this.evaluate(expr.object, scope), expr.name);
      case "item":
        return getItem(this.evaluate(expr.object, scope), this.evaluate(expr.key, scope));
      case "slice": {
        const bound = (e?: Expr) => {
          if (!e) return undefined;
          const v = this.evaluate(e, scope);
          if (v === null || v === undefined) return undefined;
          if (typeof v !== "number" || !Number.isInteger(v)) throw new TemplateError("Slice indices must be integers");
          return v;
        };
        return sliceOf(this.evaluate(expr.object, scope), bound(expr.start), bound(expr.stop), bound(expr.step));
      }
      case "call":
        return this.call(expr, scope);
      case "filter":
        return this.filter(expr.name, this.evaluate(expr.value, scope), this.arguments(expr.args, expr.kwargs, scope));
      case "test": {
        const passed = this.test(expr.name, this.evaluate(expr.value, scope), this.arguments(expr.args, [], scope));
        return expr.negated ? !passed : passed;
      }
      case "unary": {
        const operand = this.evaluate(expr.operand, scope);
        if (expr.op === "not") return !truthy(operand);
        if (typeof operand !== "number") throw new TemplateError(`Bad operand type for unary ${expr.op}: '${typeName(operand)}'`);
        return expr.op === "-" ? -operand : operand;
      }
      case "binary":
        return this.binary(expr, scope);
      case "compare": {
        let left = this.evaluate(expr.first, scope);
        for (const [op, right] of expr.rest) {
          const value = this.evaluate(right, scope);
          if (!comparison(op, left, value)) return false;
          left = value;
        }
        return true;
      }
      case "conditional":
        if (truthy(this.evaluate(expr.test, scope))) return this.evaluate(expr.then, scope);
        return expr.otherwise ? this.evaluate(expr.otherwise, scope) : undefined;
    }
  }

  arguments(args: Expr[], kwargs: [string, Expr][], scope: Scope): Arguments {
    return new Arguments(
      args.map((a) => this.evaluate(a, scope)),
      new Map(kwargs.map(([name, value]) => [name, this.evaluate(value, scope)])),
    );
  }

  call(expr: Extract<Expr, { type: "call" }>, scope: Scope): unknown {
    const { callee } = expr;
    if (callee.type === "name" && Object.hasOwn(GLOBALS, callee.name) && !scope.lookup(callee.name).found) {
      return GLOBALS[callee.name](this.arguments(expr.args, expr.kwargs, scope));
    }
    if (callee.type === "attr") {
      const receiver = this.evaluate(callee.object, scope);
      if (typeof receiver === "string") this.budget.work(receiver.length);
      return this.produced(callMethod(receiver, callee.name, this.arguments(expr.args, expr.kwargs, scope)));
    }
    const name = callee.type === "name" ? `'${callee.name}'` : "this expression";
    throw new TemplateError(`${name} is not callable`);
  }

  /** A filter pays for the text it reads and for the size of what it returns. */
  filter(name: string, value: unknown, args: Arguments): unknown {
    const filter = FILTERS.get(name);
    if (!filter) throw new TemplateError(`Unknown filter '${name}'`);
    if (typeof value === "string") this.budget.work(value.length);
    return this.produced(filter(value, args, this));
  }

  produced<T>(value: T): T {
    if (typeof value === "string") this.budget.work(value.length);
    else if (Array.isArray(value)) this.budget.reserveItems(value.length);
    return value;
  }

  test(name: string, value: unknown, args: Arguments): boolean {
    const test = TESTS.get(name);
    if (!test) throw new TemplateError(`Unknown test '${name}'`);
    return test(value, args);
  }

  binary(expr: Extract<Expr, { type: "binary" }>, scope: Scope): unknown {
    const left = this.evaluate(expr.left, scope);
    if (expr.op === "and") return truthy(left) ? this.evaluate(expr.right, scope) : left;
    if (expr.op === "or") return truthy(left) ? left : this.evaluate(expr.right, scope);
    return arithmetic(expr.op, left, this.evaluate(expr.right, scope));
  }
}

function comparison(op: string, left: unknown, right: unknown): boolean {
  switch (op) {
    case "==": return equals(left, right);
    case "!=": return !equals(left, right);
    case "<": return compare(left, right) < 0;
    case "<=": return compare(left, right) <= 0;
    case ">": return compare(left, right) > 0;
    case ">=": return compare(left, right) >= 0;
    case "in": return contains(right, left);
    case "not in": return !contains(right, left);
    default: throw new TemplateError(`Unknown comparison ${op}`);
  }
}

/** Concatenation and repetition are paid for (and refused past the caps) before the result is built. */
function arithmetic(op: string, left: unknown, right: unknown): unknown {
  if (op === "~") {
    const [a, b] = [pyStr(left), pyStr(right)];
    reserveChars(a.length + b.length);
    return a + b;
  }
  if (op === "+") {
    if (typeof left === "string" && typeof right === "string") {
      reserveChars(left.length + right.length);
      return left + right;
    }
    if (Array.isArray(left) && Array.isArray(right)) {
      reserveItems(left.length + right.length);
      return [...left, ...right];
    }
  }
  if (op === "*") {
    const [sequence, times] = typeof right === "number" ? [left, right] : [right, left];
    if ((typeof sequence === "string" || Array.isArray(sequence)) && typeof times === "number" && Number.isInteger(times)) {
      const count = Math.max(0, times);
      if (typeof sequence === "string") {
        reserveChars(sequence.length * count);
        return sequence.repeat(count);
      }
      reserveItems(sequence.length * count);
      return Array.from({ length: count }, () => sequence).flat();
    }
  }
  const a = typeof left === "boolean" ? Number(left) : left;
  const b = typeof right === "boolean" ? Number(right) : right;
  if (typeof a !== "number" || typeof b !== "number") {
    throw new TemplateError(`Unsupported operand types for ${op}: '${typeName(left)}' and '${typeName(right)}'`);
  }
  switch (op) {
    case "+": return a + b;
    case "-": return a - b;
    case "*": return a * b;
    case "**": return a ** b;
  }
  if (b === 0) throw new TemplateError("Division by zero");
  switch (op) {
    case "/": return a / b;
    case "//": return Math.floor(a / b);
    case "%": return a - b * Math.floor(a / b);
    default: throw new TemplateError(`Unknown operator ${op}`);
  }
}

/** The only functions a template can call by name. */
const GLOBALS: Record<string, (args: Arguments) => unknown> = {
  range(args) {
    const numbers = args.positional.map((n) => {
      if (typeof n !== "number" || !Number.isInteger(n)) throw new TemplateError("range() expects integers");
      return n;
    });
    const [start, stop, step = 1] = numbers.length === 1 ? [0, numbers[0]] : numbers;
    if (stop === undefined || step === 0) throw new TemplateError("range() expects 1 to 3 integers and a non-zero step");
    const length = Math.max(0, Math.ceil((stop - start) / step));
    reserveItems(length);
    return Array.from({ length }, (_, i) => start + i * step);
  },
  dict(args) {
    return Object.fromEntries(args.keywords);
  },
  namespace(args) {
    const namespace = new Namespace();
    const initial = args.positional[0];
    if (isMapping(initial)) for (const [k, v] of Object.entries(initial)) namespace.attributes.set(k, v);
    for (const [k, v] of args.keywords) namespace.attributes.set(k, v);
    return namespace;
  },
};
