import type { Reference } from "./filters.ts";

/** One `@ag.embed[…]` token inside a string, parsed. */
export interface StringEmbed {
  token: string;
  references: Record<string, Reference>;
  selector: { key?: string; path?: string } | null;
}

const PREFIX = "@ag.embed[";
const FIELDS = new Set(["id", "slug", "version"]);

/**
 * The embed tokens of a string, in order: `@ag.embed[@ag.references[workflow_revision.version=v1],
 * @ag.selector[path=parameters.prompt]]` (the reference's inline form). Tokens with unbalanced brackets or
 * without a usable `@ag.references[entity.field=value, …]` are not embeds and stay as text.
 */
export function findStringEmbeds(text: string): StringEmbed[] {
  const found: StringEmbed[] = [];
  let at = text.indexOf(PREFIX);
  while (at !== -1) {
    let depth = 1;
    let i = at + PREFIX.length;
    for (; i < text.length && depth > 0; i += 1) {
      if (text[i] === "[") depth += 1;
      else if (text[i] === "]") depth -= 1;
    }
    if (depth > 0) break;
    const token = text.slice(at, i);
    const parsed = parseToken(token);
    if (parsed) found.push(parsed);
    at = text.indexOf(PREFIX, i);
  }
  return found;
}

function parseToken(token: string): StringEmbed | null {
  const content = token.slice(PREFIX.length, -1);
  const refs = /@ag\.references\[([^\]]+)\]/.exec(content);
  if (!refs) return null;
  const references: Record<string, Reference> = {};
  for (const [path, value] of pairs(refs[1])) {
    const dot = path.lastIndexOf(".");
    const entity = path.slice(0, dot);
    const field = path.slice(dot + 1);
    if (dot < 1 || !FIELDS.has(field)) continue;
    references[entity] = { ...references[entity], [field]: value };
  }
  if (Object.keys(references).length === 0) return null;
  const sel = /@ag\.selector\[([^\]]+)\]/.exec(content);
  let selector: StringEmbed["selector"] = null;
  if (sel) {
    const parts = Object.fromEntries(pairs(sel[1]));
    if (parts.key || parts.path) selector = { ...(parts.key ? { key: parts.key } : {}), ...(parts.path ? { path: parts.path } : {}) };
  }
  return { token, references, selector };
}

/** `a=1, b.c=2` → [["a", "1"], ["b.c", "2"]]; entries without `=` are skipped. */
function pairs(list: string): [string, string][] {
  return list.split(",").map((e) => e.trim()).filter((e) => e.includes("=")).map((e) => {
    const eq = e.indexOf("=");
    return [e.slice(0, eq).trim(), e.slice(eq + 1).trim()];
  });
}
