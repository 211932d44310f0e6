import { isJsonObject } from "./json-data.ts";
import type { RenderBudget } from "./render-budget.ts";
import { TemplateError } from "./template-error.ts";

/**
 * A JSONPath subset without script or filter expressions (nothing in a path is ever evaluated as
 * code): `$`, `.name`, `['name']`, `[0]`, `[-1]`, `[*]`, `.*`, `..name`, `[a,b]`, `[start:end:step]`.
 * A definite path (no wildcard, descent, slice or union) yields one value; others yield a list.
 */
export interface PathResult {
  values: unknown[];
  definite: boolean;
}

type Selector =
  | { kind: "key"; key: string }
  | { kind: "index"; index: number }
  | { kind: "wildcard" }
  | { kind: "slice"; start?: number; end?: number; step?: number };

interface Step {
  descendant: boolean;
  selectors: Selector[];
}

/** With a budget, every node a step visits or selects is a step of work. */
export function queryJsonPath(root: unknown, expression: string, budget?: RenderBudget): PathResult {
  const steps = parsePath(expression);
  let nodes = [root];
  for (const step of steps) {
    const sources = step.descendant ? descendantsAndSelf(nodes, budget) : nodes;
    const selected: unknown[] = [];
    for (const node of sources) {
      for (const selector of step.selectors) {
        const found = select(node, selector);
        budget?.reserveItems(found.length);
        for (const value of found) selected.push(value);
      }
    }
    nodes = selected;
  }
  const definite = steps.every((s) => !s.descendant && s.selectors.length === 1 &&
    (s.selectors[0].kind === "key" || s.selectors[0].kind === "index"));
  return { values: nodes, definite };
}

function select(node: unknown, selector: Selector): unknown[] {
  switch (selector.kind) {
    case "key":
      return isJsonObject(node) && Object.hasOwn(node, selector.key) ? [node[selector.key]] : [];
    case "index": {
      if (!Array.isArray(node)) return [];
      const index = selector.index < 0 ? node.length + selector.index : selector.index;
      return index >= 0 && index < node.length ? [node[index]] : [];
    }
    case "wildcard":
      return Array.isArray(node) ? [...node] : isJsonObject(node) ? Object.values(node) : [];
    case "slice":
      return Array.isArray(node) ? slice(node, selector) : [];
  }
}

function slice(list: unknown[], { start, end, step = 1 }: { start?: number; end?: number; step?: number }): unknown[] {
  if (step === 0) return [];
  const n = list.length;
  const clamp = (i: number, low: number, high: number) => Math.min(Math.max(i < 0 ? n + i : i, low), high);
  const out: unknown[] = [];
  if (step > 0) {
    for (let i = clamp(start ?? 0, 0, n); i < clamp(end ?? n, 0, n); i += step) out.push(list[i]);
  } else {
    for (let i = clamp(start ?? n - 1, -1, n - 1); i > clamp(end ?? -n - 1, -1, n - 1); i += step) out.push(list[i]);
  }
  return out;
}

/** Each node followed by its descendants, depth first, walked without recursion. */
function descendantsAndSelf(roots: unknown[], budget?: RenderBudget): unknown[] {
  const out: unknown[] = [];
  const pending = [...roots].reverse();
  while (pending.length > 0) {
    const node = pending.pop();
    budget?.step();
    out.push(node);
    const children = Array.isArray(node) ? node : isJsonObject(node) ? Object.values(node) : [];
    for (let i = children.length - 1; i >= 0; i--) pending.push(children[i]);
  }
  return out;
}

function parsePath(expression: string): Step[] {
  const fail = (why: string): never => {
    throw new TemplateError(`Invalid JSONPath ${JSON.stringify(expression)}: ${why}`);
  };
  if (!expression.startsWith("$")) fail("it must start with $");
  const steps: Step[] = [];
  let i = 1;
  while (i < expression.length) {
    let descendant = false;
    if (expression.startsWith("..", i)) {
      descendant = true;
      i += 2;
    } else if (expression[i] === ".") {
      i += 1;
    } else if (expression[i] !== "[") {
      fail(`unexpected ${JSON.stringify(expression[i])} at ${i}`);
    }
    if (expression[i] === "[") {
      const close = findClosingBracket(expression, i) ?? fail("unclosed [");
      steps.push({ descendant, selectors: parseBracket(expression.slice(i + 1, close), fail) });
      i = close + 1;
    } else {
      const match = /^(\*|[^.[\]\s]+)/.exec(expression.slice(i)) ?? fail(`expected a name at ${i}`);
      steps.push({ descendant, selectors: [match[1] === "*" ? { kind: "wildcard" } : { kind: "key", key: match[1] }] });
      i += match[1].length;
    }
  }
  return steps;
}

function findClosingBracket(expression: string, open: number): number | null {
  let quote: string | null = null;
  for (let i = open + 1; i < expression.length; i++) {
    const c = expression[i];
    if (quote) {
      if (c === "\\") i++;
      else if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "]") return i;
  }
  return null;
}

function parseBracket(body: string, fail: (why: string) => never): Selector[] {
  const text = body.trim();
  if (text.startsWith("?") || text.startsWith("(")) fail("filter and script expressions are not supported");
  return splitUnion(text).map((part): Selector => {
    const p = part.trim();
    if (p === "*") return { kind: "wildcard" };
    if (/^-?\d+$/.test(p)) return { kind: "index", index: Number(p) };
    const quoted = /^(['"])((?:\\.|(?!\1).)*)\1$/.exec(p);
    if (quoted) return { kind: "key", key: quoted[2].replace(/\\(.)/g, "$1") };
    const range = /^(-?\d+)?\s*:\s*(-?\d+)?\s*(?::\s*(-?\d+)?)?$/.exec(p);
    if (range) {
      const num = (s: string | undefined) => (s === undefined ? undefined : Number(s));
      return { kind: "slice", start: num(range[1]), end: num(range[2]), step: num(range[3]) };
    }
    return fail(`unsupported selector [${p}]`);
  });
}

function splitUnion(text: string): string[] {
  const parts: string[] = [];
  let quote: string | null = null;
  let current = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === "\\") {
        current += c + (text[i + 1] ?? "");
        i++;
        continue;
      }
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === ",") {
      parts.push(current);
      current = "";
      continue;
    }
    current += c;
  }
  parts.push(current);
  return parts;
}
