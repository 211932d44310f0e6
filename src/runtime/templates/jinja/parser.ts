import { TemplateError } from "../template-error.ts";
import type { Expr, Stmt } from "./ast.ts";
import { FILTERS } from "./filters.ts";
import type { Token } from "./lexer.ts";
import { TESTS } from "./tests.ts";

const MAX_DEPTH = 100;
const LITERALS: Record<string, unknown> = { true: true, false: false, none: null, True: true, False: false, None: null };
const COMPARISONS = new Set(["==", "!=", "<", ">", "<=", ">="]);
/** Words that end an expression, so `x is divisibleby 3 else …` does not swallow them as arguments. */
const KEYWORDS = new Set(["and", "or", "not", "in", "is", "if", "else", "elif", "endif", "for", "endfor", "recursive"]);

/** Recursive descent over the token list, following Jinja's operator precedence. */
export function parse(tokens: Token[]): Stmt[] {
  const parser = new Parser(tokens);
  const { body, end } = parser.body([]);
  if (end) throw new TemplateError(`Unexpected {% ${end} %}`);
  return body;
}

class Parser {
  readonly tokens: Token[];
  pos = 0;
  depth = 0;

  constructor(tokens: Token[]) {
    this.tokens = tokens;
  }

  get token(): Token {
    return this.tokens[this.pos];
  }

  fail(message: string): never {
    throw new TemplateError(`${message} (at position ${this.token.pos})`);
  }

  isOp(value: string, offset = 0): boolean {
    const t = this.tokens[this.pos + offset];
    return t?.kind === "op" && t.value === value;
  }

  isName(value?: string, offset = 0): boolean {
    const t = this.tokens[this.pos + offset];
    return t?.kind === "name" && (value === undefined || t.value === value);
  }

  expectOp(value: string): void {
    if (!this.isOp(value)) this.fail(`Expected ${JSON.stringify(value)}`);
    this.pos++;
  }

  expectName(value?: string): string {
    const t = this.token;
    if (t.kind !== "name" || (value !== undefined && t.value !== value)) this.fail(`Expected ${value ?? "a name"}`);
    this.pos++;
    return t.value;
  }

  expectClose(tag: "var" | "block"): void {
    const t = this.token;
    if (t.kind !== "close" || t.tag !== tag) this.fail(`Expected the end of the ${tag === "var" ? "{{ }}" : "{% %}"} tag`);
    this.pos++;
  }

  /** Statements until one of `ends` opens a block tag; the end tag's name is consumed, its tag is not closed. */
  body(ends: string[]): { body: Stmt[]; end: string | null } {
    const body: Stmt[] = [];
    for (;;) {
      const t = this.token;
      if (t.kind === "eof") {
        if (ends.length > 0) this.fail(`Unclosed block: expected {% ${ends.join(" or ")} %}`);
        return { body, end: null };
      }
      if (t.kind === "text") {
        body.push({ type: "text", text: t.value });
        this.pos++;
      } else if (t.kind === "open" && t.tag === "var") {
        this.pos++;
        body.push({ type: "output", expr: this.expression() });
        this.expectClose("var");
      } else if (t.kind === "open") {
        this.pos++;
        const name = this.expectName();
        if (ends.includes(name)) return { body, end: name };
        body.push(this.statement(name));
      } else this.fail("Unexpected token");
    }
  }

  statement(name: string): Stmt {
    this.nest();
    try {
      switch (name) {
        case "if":
          return this.ifStatement();
        case "for":
          return this.forStatement();
        case "set":
          return this.setStatement();
        default:
          return this.fail(`Unsupported tag {% ${name} %}`);
      }
    } finally {
      this.depth--;
    }
  }

  ifStatement(): Stmt {
    const branches: { test: Expr; body: Stmt[] }[] = [];
    let otherwise: Stmt[] = [];
    let test = this.expression();
    for (;;) {
      this.expectClose("block");
      const { body, end } = this.body(["elif", "else", "endif"]);
      branches.push({ test, body });
      if (end === "elif") {
        test = this.expression();
        continue;
      }
      if (end === "else") {
        this.expectClose("block");
        otherwise = this.body(["endif"]).body;
      }
      this.expectClose("block");
      return { type: "if", branches, otherwise };
    }
  }

  forStatement(): Stmt {
    const parenthesized = this.isOp("(");
    if (parenthesized) this.pos++;
    const targets = [this.expectName()];
    while (this.isOp(",")) {
      this.pos++;
      targets.push(this.expectName());
    }
    if (parenthesized) this.expectOp(")");
    this.expectName("in");
    const iterable = this.orExpression();
    let filter: Expr | undefined;
    if (this.isName("if")) {
      this.pos++;
      filter = this.orExpression();
    }
    if (this.isName("recursive")) this.fail("Recursive loops are not supported");
    this.expectClose("block");
    const { body, end } = this.body(["else", "endfor"]);
    let otherwise: Stmt[] = [];
    if (end === "else") {
      this.expectClose("block");
      otherwise = this.body(["endfor"]).body;
    }
    this.expectClose("block");
    return { type: "for", targets, iterable, filter, body, otherwise };
  }

  setStatement(): Stmt {
    const target = this.expectName();
    let attribute: string | undefined;
    if (this.isOp(".")) {
      this.pos++;
      attribute = this.expectName();
    }
    if (!attribute && this.token.kind === "close") {
      this.expectClose("block");
      const { body } = this.body(["endset"]);
      this.expectClose("block");
      return { type: "setBlock", target, body };
    }
    this.expectOp("=");
    const value = this.expression();
    this.expectClose("block");
    return { type: "set", target, attribute, value };
  }

  nest(): void {
    if (++this.depth > MAX_DEPTH) this.fail("Template nesting is too deep");
  }

  expression(): Expr {
    this.nest();
    try {
      let expr = this.orExpression();
      while (this.isName("if")) {
        this.pos++;
        const test = this.orExpression();
        let otherwise: Expr | undefined;
        if (this.isName("else")) {
          this.pos++;
          otherwise = this.expression();
        }
        expr = { type: "conditional", test, then: expr, otherwise };
      }
      return expr;
    } finally {
      this.depth--;
    }
  }

  orExpression(): Expr {
    let left = this.andExpression();
    while (this.isName("or")) {
      this.pos++;
      left = { type: "binary", op: "or", left, right: this.andExpression() };
    }
    return left;
  }

  andExpression(): Expr {
    let left = this.notExpression();
    while (this.isName("and")) {
      this.pos++;
      left = { type: "binary", op: "and", left, right: this.notExpression() };
    }
    return left;
  }

  notExpression(): Expr {
    if (this.isName("not")) {
      this.pos++;
      this.nest();
      try {
        return { type: "unary", op: "not", operand: this.notExpression() };
      } finally {
        this.depth--;
      }
    }
    return this.comparison();
  }

  comparison(): Expr {
    const first = this.additive();
    const rest: [string, Expr][] = [];
    for (;;) {
      const t = this.token;
      if (t.kind === "op" && COMPARISONS.has(t.value)) {
        this.pos++;
        rest.push([t.value, this.additive()]);
      } else if (this.isName("in")) {
        this.pos++;
        rest.push(["in", this.additive()]);
      } else if (this.isName("not") && this.isName("in", 1)) {
        this.pos += 2;
        rest.push(["not in", this.additive()]);
      } else break;
    }
    return rest.length === 0 ? first : { type: "compare", first, rest };
  }

  binaryLevel(operators: string[], next: () => Expr): Expr {
    let left = next();
    for (;;) {
      const t = this.token;
      if (t.kind !== "op" || !operators.includes(t.value)) return left;
      this.pos++;
      left = { type: "binary", op: t.value, left, right: next() };
    }
  }

  additive = (): Expr => this.binaryLevel(["+", "-"], this.concat);
  concat = (): Expr => this.binaryLevel(["~"], this.multiplicative);
  multiplicative = (): Expr => this.binaryLevel(["*", "/", "//", "%"], this.power);
  power = (): Expr => this.binaryLevel(["**"], () => this.unary(true));

  unary(withFilters: boolean): Expr {
    let expr: Expr;
    if (this.isOp("-") || this.isOp("+")) {
      const op = (this.token as { value: "-" | "+" }).value;
      this.pos++;
      this.nest();
      try {
        expr = { type: "unary", op, operand: this.unary(false) };
      } finally {
        this.depth--;
      }
    } else expr = this.postfix(this.primary());
    return withFilters ? this.filters(expr) : expr;
  }

  primary(): Expr {
    const t = this.token;
    if (t.kind === "name") {
      this.pos++;
      return Object.hasOwn(LITERALS, t.value) ? { type: "literal", value: LITERALS[t.value] } : { type: "name", name: t.value };
    }
    if (t.kind === "string") {
      let value = "";
      while (this.token.kind === "string") value += (this.tokens[this.pos++] as { value: string }).value;
      return { type: "literal", value };
    }
    if (t.kind === "number") {
      this.pos++;
      return { type: "literal", value: t.value };
    }
    if (this.isOp("(")) {
      this.pos++;
      if (this.isOp(")")) {
        this.pos++;
        return { type: "list", items: [] };
      }
      const first = this.expression();
      if (!this.isOp(",")) {
        this.expectOp(")");
        return first;
      }
      const items = [first];
      while (this.isOp(",")) {
        this.pos++;
        if (this.isOp(")")) break;
        items.push(this.expression());
      }
      this.expectOp(")");
      return { type: "list", items };
    }
    if (this.isOp("[")) {
      this.pos++;
      const items = this.commaSeparated("]", () => this.expression());
      return { type: "list", items };
    }
    if (this.isOp("{")) {
      this.pos++;
      const entries = this.commaSeparated("}", (): [Expr, Expr] => {
        const key = this.expression();
        this.expectOp(":");
        return [key, this.expression()];
      });
      return { type: "dict", entries };
    }
    return this.fail("Expected an expression");
  }

  commaSeparated<T>(close: string, item: () => T): T[] {
    const items: T[] = [];
    while (!this.isOp(close)) {
      items.push(item());
      if (!this.isOp(",")) break;
      this.pos++;
    }
    this.expectOp(close);
    return items;
  }

  postfix(expr: Expr): Expr {
    for (;;) {
      if (this.isOp(".")) {
        this.pos++;
        const t = this.token;
        if (t.kind === "name") expr = { type: "attr", object: expr, name: t.value };
        else if (t.kind === "number" && Number.isInteger(t.value)) expr = { type: "item", object: expr, key: { type: "literal", value: t.value } };
        else this.fail("Expected an attribute name");
        this.pos++;
      } else if (this.isOp("[")) {
        this.pos++;
        expr = this.subscript(expr);
      } else if (this.isOp("(")) {
        this.pos++;
        expr = { type: "call", callee: expr, ...this.callArguments() };
      } else return expr;
    }
  }

  subscript(object: Expr): Expr {
    const part = () => (this.isOp(":") || this.isOp("]") ? undefined : this.expression());
    const start = part();
    if (!this.isOp(":")) {
      this.expectOp("]");
      if (!start) this.fail("Expected a subscript");
      return { type: "item", object, key: start };
    }
    this.pos++;
    const stop = part();
    let step: Expr | undefined;
    if (this.isOp(":")) {
      this.pos++;
      step = part();
    }
    this.expectOp("]");
    return { type: "slice", object, start, stop, step };
  }

  /** After `(`: positional then `name=value` arguments, up to and including `)`. */
  callArguments(): { args: Expr[]; kwargs: [string, Expr][] } {
    const args: Expr[] = [];
    const kwargs: [string, Expr][] = [];
    this.commaSeparated(")", () => {
      if (this.isName() && this.isOp("=", 1)) {
        const name = this.expectName();
        this.pos++;
        kwargs.push([name, this.expression()]);
      } else {
        if (kwargs.length > 0) this.fail("Positional argument after keyword argument");
        args.push(this.expression());
      }
    });
    return { args, kwargs };
  }

  filters(value: Expr): Expr {
    for (;;) {
      if (this.isOp("|")) {
        this.pos++;
        const name = this.expectName();
        if (!FILTERS.has(name)) this.fail(`Unknown filter '${name}'`);
        let call: { args: Expr[]; kwargs: [string, Expr][] } = { args: [], kwargs: [] };
        if (this.isOp("(")) {
          this.pos++;
          call = this.callArguments();
        }
        value = { type: "filter", value, name, ...call };
      } else if (this.isName("is")) {
        this.pos++;
        const negated = this.isName("not");
        if (negated) this.pos++;
        const t = this.token;
        const name = t.kind === "name" ? t.value : t.kind === "op" && COMPARISONS.has(t.value) ? t.value : this.fail("Expected a test name");
        this.pos++;
        if (!TESTS.has(name)) this.fail(`Unknown test '${name}'`);
        let args: Expr[] = [];
        if (this.isOp("(")) {
          this.pos++;
          args = this.callArguments().args;
        } else if (this.startsArgument()) args = [this.unary(false)];
        value = { type: "test", value, name, args, negated };
      } else return value;
    }
  }

  startsArgument(): boolean {
    const t = this.token;
    if (t.kind === "string" || t.kind === "number") return true;
    if (t.kind === "name") return !KEYWORDS.has(t.value);
    return t.kind === "op" && (t.value === "[" || t.value === "{" || t.value === "-");
  }
}
