/** The syntax tree of a Jinja template: only what the parser can produce, nothing host-callable. */
export type Expr =
  | { type: "literal"; value: unknown }
  | { type: "name"; name: string }
  | { type: "list"; items: Expr[] }
  | { type: "dict"; entries: [Expr, Expr][] }
  | { type: "attr"; object: Expr; name: string }
  | { type: "item"; object: Expr; key: Expr }
  | { type: "slice"; object: Expr; start?: Expr; stop?: Expr; step?: Expr }
  | { type: "call"; callee: Expr; args: Expr[]; kwargs: [string, Expr][] }
  | { type: "filter"; value: Expr; name: string; args: Expr[]; kwargs: [string, Expr][] }
  | { type: "test"; value: Expr; name: string; args: Expr[]; negated: boolean }
  | { type: "unary"; op: "not" | "-" | "+"; operand: Expr }
  | { type: "binary"; op: string; left: Expr; right: Expr }
  | { type: "compare"; first: Expr; rest: [string, Expr][] }
  | { type: "conditional"; test: Expr; then: Expr; otherwise?: Expr };

export type Stmt =
  | { type: "text"; text: string }
  | { type: "output"; expr: Expr }
  | { type: "if"; branches: { test: Expr; body: Stmt[] }[]; otherwise: Stmt[] }
  | { type: "for"; targets: string[]; iterable: Expr; filter?: Expr; body: Stmt[]; otherwise: Stmt[] }
  | { type: "set"; target: string; attribute?: string; value: Expr }
  | { type: "setBlock"; target: string; body: Stmt[] };
