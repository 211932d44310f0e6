import { type Found, type JsonObject, listElement, MISSING, ownProperty } from "./json-data.ts";
import type { RenderBudget } from "./render-budget.ts";
import { TemplateError } from "./template-error.ts";
import { valueText } from "./value-text.ts";

/**
 * Mustache without HTML escaping: variables, `{{{x}}}`/`{{&x}}`, sections, inverted sections,
 * dotted names, `{{.}}`, comments and standalone-line trimming. A missing name renders as empty.
 * Partials render as empty and delimiter changes are refused: prompts have no use for either.
 */
type Node =
  | { type: "text"; text: string }
  | { type: "variable"; name: string }
  | { type: "section"; name: string; inverted: boolean; children: Node[] };

export function renderMustache(template: string, context: JsonObject, budget: RenderBudget): string {
  return renderNodes(parse(template, budget), [context], budget);
}

const STANDALONE_TAGS = new Set(["#", "^", "/", "!", ">"]);

/** Each tag is a step. Standalone lines are found by scanning only the blanks around a tag, never the whole line. */
function parse(template: string, budget: RenderBudget): Node[] {
  const root: Node[] = [];
  const open: { name: string; parentChildren: Node[] }[] = [];
  let children = root;
  let text = "";
  let lastTagEnd = 0;
  let i = 0;
  const flush = () => {
    if (text) children.push({ type: "text", text });
    text = "";
  };
  while (i < template.length) {
    const start = template.indexOf("{{", i);
    if (start === -1) {
      text += template.slice(i);
      break;
    }
    budget.step();
    text += template.slice(i, start);
    const triple = template.startsWith("{{{", start);
    const closer = triple ? "}}}" : "}}";
    const close = template.indexOf(closer, start + closer.length);
    if (close === -1) throw new TemplateError(`Unclosed mustache tag at position ${start}`);
    const body = template.slice(start + closer.length, close).trim();
    const sigil = triple ? "&" : "#^/!&>=".includes(body[0] ?? "") ? body[0] : "";
    const name = triple || sigil === "" ? body : body.slice(1).trim();
    let end = close + closer.length;

    if (STANDALONE_TAGS.has(sigil)) {
      let lineStart = start;
      while (lineStart > 0 && (template[lineStart - 1] === " " || template[lineStart - 1] === "\t")) lineStart--;
      let lineEnd = end;
      while (lineEnd < template.length && (template[lineEnd] === " " || template[lineEnd] === "\t")) lineEnd++;
      if (template[lineEnd] === "\r" && template[lineEnd + 1] === "\n") lineEnd++;
      const startsLine = lineStart === 0 || template[lineStart - 1] === "\n";
      const endsLine = lineEnd === template.length || template[lineEnd] === "\n";
      if (startsLine && endsLine && lineStart >= lastTagEnd) {
        text = text.slice(0, text.length - (start - lineStart));
        end = lineEnd === template.length ? lineEnd : lineEnd + 1;
      }
    }

    switch (sigil) {
      case "!":
      case ">":
        break;
      case "=":
        throw new TemplateError("Changing mustache delimiters is not supported");
      case "#":
      case "^": {
        flush();
        const section = { type: "section" as const, name, inverted: sigil === "^", children: [] as Node[] };
        children.push(section);
        open.push({ name, parentChildren: children });
        children = section.children;
        break;
      }
      case "/": {
        flush();
        const section = open.pop();
        if (!section || section.name !== name) throw new TemplateError(`Unexpected closing tag {{/${name}}}`);
        children = section.parentChildren;
        break;
      }
      default:
        flush();
        children.push({ type: "variable", name });
    }
    lastTagEnd = end;
    i = end;
  }
  flush();
  if (open.length > 0) throw new TemplateError(`Unclosed section {{#${open.at(-1)!.name}}}`);
  return root;
}

/** Every node and every section iteration is a step; text is charged to the output as it is written. */
function renderNodes(nodes: Node[], stack: unknown[], budget: RenderBudget): string {
  let output = "";
  for (const node of nodes) {
    budget.step();
    if (node.type === "text") output += budget.emit(node.text);
    else if (node.type === "variable") {
      const value = lookup(node.name, stack, budget);
      if (value !== null && value !== undefined) output += budget.emit(valueText(value, budget));
    } else {
      const value = lookup(node.name, stack, budget);
      const empty = !value || (Array.isArray(value) && value.length === 0);
      if (node.inverted) {
        if (empty) output += renderNodes(node.children, stack, budget);
      } else if (!empty) {
        const items = Array.isArray(value) ? value : [value];
        for (const item of items) {
          budget.step(stack.length);
          output += renderNodes(node.children, [...stack, item], budget);
        }
      }
    }
  }
  return output;
}

/** The first segment is looked up through the context stack; the rest only inside what it found. */
function lookup(name: string, stack: unknown[], budget: RenderBudget): unknown {
  if (name === ".") return stack.at(-1);
  const [first, ...rest] = name.split(".");
  let value: Found = MISSING;
  for (let k = stack.length - 1; k >= 0 && value === MISSING; k--) {
    budget.step();
    value = ownProperty(stack[k], first);
  }
  for (const segment of rest) {
    if (value === MISSING) break;
    value = Array.isArray(value) ? listElement(value, segment) : ownProperty(value, segment);
  }
  return value === MISSING ? undefined : value;
}
