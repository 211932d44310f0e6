import { TemplateError } from "../template-error.ts";
import { budget } from "./limits.ts";

/**
 * Splits a Jinja template into text and tag tokens, applying whitespace control (`{{-`, `-%}`),
 * comments, `{% raw %}` blocks and Jinja's default of dropping one trailing newline.
 */
export type Token =
  | { kind: "text"; value: string; pos: number }
  | { kind: "open"; tag: "var" | "block"; pos: number }
  | { kind: "close"; tag: "var" | "block"; pos: number }
  | { kind: "name"; value: string; pos: number }
  | { kind: "string"; value: string; pos: number }
  | { kind: "number"; value: number; pos: number }
  | { kind: "op"; value: string; pos: number }
  | { kind: "eof"; pos: number };

const OPERATORS = ["**", "//", "==", "!=", "<=", ">=", "+", "-", "*", "/", "%", "~", "<", ">", "(", ")", "[", "]", "{", "}", ".", ",", ":", "|", "="];
const CLOSERS = { var: "}}", block: "%}" } as const;
const ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"', "0": "\0" };

export function tokenize(source: string): Token[] {
  const template = source.endsWith("\n") ? source.slice(0, -1) : source;
  const tokens: Token[] = [];
  let stripNext = false;
  let i = 0;

  const pushText = (text: string, pos: number) => {
    // trimStart/trimEnd strip what \s matches, in linear time (an unanchored /\s+$/ is quadratic).
    const value = stripNext ? text.trimStart() : text;
    stripNext = false;
    if (value) tokens.push({ kind: "text", value, pos });
  };
  const stripPreviousText = () => {
    const last = tokens.at(-1);
    if (last?.kind === "text") {
      last.value = last.value.trimEnd();
      if (!last.value) tokens.pop();
    }
  };

  while (i < template.length) {
    budget().step();
    const start = findTagStart(template, i);
    if (start === -1) {
      pushText(template.slice(i), i);
      break;
    }
    pushText(template.slice(i, start), i);
    const marker = template[start + 1];
    let cursor = start + 2;
    if (template[cursor] === "-") {
      stripPreviousText();
      cursor++;
    } else if (template[cursor] === "+") cursor++;

    if (marker === "#") {
      const end = template.indexOf("#}", cursor);
      if (end === -1) throw new TemplateError(`Unclosed comment at position ${start}`);
      stripNext = template[end - 1] === "-";
      i = end + 2;
      continue;
    }

    const tag = marker === "{" ? "var" : "block";
    const inner: Token[] = [];
    const end = lexTag(template, cursor, CLOSERS[tag], inner);
    stripNext = template[end - 1] === "-";
    i = end + 2;

    if (tag === "block" && inner.length === 1 && inner[0].kind === "name" && inner[0].value === "raw") {
      const endRaw = /\{%(-?)\s*endraw\s*(-?)%\}/g;
      endRaw.lastIndex = i;
      const match = endRaw.exec(template);
      if (!match) throw new TemplateError(`Unclosed raw block at position ${start}`);
      let raw = template.slice(i, match.index);
      if (stripNext) raw = raw.trimStart();
      if (match[1] === "-") raw = raw.trimEnd();
      if (raw) tokens.push({ kind: "text", value: raw, pos: i });
      stripNext = match[2] === "-";
      i = match.index + match[0].length;
      continue;
    }
    tokens.push({ kind: "open", tag, pos: start }, ...inner, { kind: "close", tag, pos: end });
  }
  tokens.push({ kind: "eof", pos: template.length });
  return tokens;
}

function findTagStart(template: string, from: number): number {
  for (let i = template.indexOf("{", from); i !== -1; i = template.indexOf("{", i + 1)) {
    const next = template[i + 1];
    if (next === "{" || next === "%" || next === "#") return i;
  }
  return -1;
}

/** Lexes expression tokens up to the closing delimiter; returns the closer's position. */
function lexTag(template: string, from: number, closer: string, out: Token[]): number {
  const brackets: string[] = [];
  let i = from;
  while (i < template.length) {
    budget().step();
    const c = template[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (brackets.length === 0) {
      if (c === "-" && template.startsWith(closer, i + 1)) return i + 1;
      if (template.startsWith(closer, i)) return i;
    }
    const rest = template.slice(i, i + 64);
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(rest);
    if (name) {
      out.push({ kind: "name", value: name[0], pos: i });
      i += name[0].length;
      continue;
    }
    const number = /^\d[\d_]*(\.\d[\d_]*)?([eE][+-]?\d+)?/.exec(template.slice(i, i + 400));
    if (number) {
      out.push({ kind: "number", value: Number(number[0].replaceAll("_", "")), pos: i });
      i += number[0].length;
      continue;
    }
    if (c === "'" || c === '"') {
      const [value, end] = lexString(template, i);
      out.push({ kind: "string", value, pos: i });
      i = end;
      continue;
    }
    const op = OPERATORS.find((o) => template.startsWith(o, i));
    if (!op) throw new TemplateError(`Unexpected character ${JSON.stringify(c)} at position ${i}`);
    if (op === "(" || op === "[" || op === "{") brackets.push(op);
    if (op === ")" || op === "]" || op === "}") {
      const expected = { ")": "(", "]": "[", "}": "{" }[op];
      if (brackets.pop() !== expected) throw new TemplateError(`Unbalanced ${JSON.stringify(op)} at position ${i}`);
    }
    out.push({ kind: "op", value: op, pos: i });
    i += op.length;
  }
  throw new TemplateError(`Unclosed tag: expected ${JSON.stringify(closer)}`);
}

function lexString(template: string, start: number): [string, number] {
  const quote = template[start];
  let value = "";
  for (let i = start + 1; i < template.length; i++) {
    const c = template[i];
    if (c === quote) return [value, i + 1];
    if (c !== "\\") {
      value += c;
      continue;
    }
    const next = template[++i];
    if (next === "u" && /^[0-9a-fA-F]{4}$/.test(template.slice(i + 1, i + 5))) {
      value += String.fromCharCode(parseInt(template.slice(i + 1, i + 5), 16));
      i += 4;
    } else value += ESCAPES[next] ?? `\\${next}`;
  }
  throw new TemplateError(`Unclosed string at position ${start}`);
}
