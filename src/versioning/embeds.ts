import type { Scope } from "../accounts/scope.ts";
import type { Queryable } from "../db/database.ts";
import { badRequest, HttpError } from "../errors.ts";
import type { Reference } from "./filters.ts";
import { dotPath, getIn, type Json } from "./json-path.ts";
import type { Kind } from "./kind.ts";
import { retrieveRevision } from "./resolve.ts";
import { findStringEmbeds } from "./string-embeds.ts";

/**
 * Embedded references: a value `{"@ag.embed": {"@ag.references": {"workflow_revision": {"id": …}},
 * "@ag.selector": {"path": "parameters.prompt"}}}` inside revision data stands for (a part of) another
 * revision's data; inside text, `@ag.embed[@ag.references[workflow_revision.id=…], @ag.selector[path=…]]`
 * does the same as a string. Resolving inlines them, recursively, within depth and count limits.
 */
export interface ResolveLimits {
  maxDepth: number;
  maxEmbeds: number;
  errorPolicy: "exception" | "placeholder" | "keep";
}

export interface ResolutionInfo {
  references_used: Record<string, Reference>[];
  depth_reached: number;
  embeds_resolved: number;
  errors: string[];
}

const EMBED = "@ag.embed";
type Inlined = { value: Json } | { failed: string };
const isObject = (v: unknown): v is Record<string, Json> => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: Json | undefined) => (typeof v === "string" && v ? v : undefined);

export async function resolveEmbeds(db: Queryable, scope: Scope, kinds: Kind[], data: Json, limits: ResolveLimits) {
  const info: ResolutionInfo = { references_used: [], depth_reached: 0, embeds_resolved: 0, errors: [] };

  const fail = (message: string, embed: Json): Json => {
    if (limits.errorPolicy === "exception") throw badRequest(`Cannot resolve embedded reference: ${message}`);
    info.errors.push(message);
    return limits.errorPolicy === "placeholder" ? `<unresolved: ${message}>` : embed;
  };

  async function walk(value: Json, depth: number): Promise<Json> {
    if (typeof value === "string") return value.includes("@ag.embed[") ? inlineInText(value, depth) : value;
    if (Array.isArray(value)) return Promise.all(value.map((v) => walk(v, depth)));
    if (!isObject(value)) return value;
    if (!(EMBED in value)) {
      const out: Record<string, Json> = {};
      for (const [k, v] of Object.entries(value)) out[k] = await walk(v, depth);
      return out;
    }
    const embed = value[EMBED];
    const refs = isObject(embed) && isObject(embed["@ag.references"]) ? (embed["@ag.references"] as Record<string, Reference>) : null;
    if (!refs) return fail("an @ag.embed needs @ag.references", value);
    const selector = isObject(embed) && isObject(embed["@ag.selector"]) ? embed["@ag.selector"] : {};
    const part = await inline(refs, { key: str(selector.key), path: str(selector.path) }, depth);
    return "failed" in part ? fail(part.failed, value) : part.value;
  }

  /** Each `@ag.embed[…]` token of a text replaced by what it names (text as is, other values as JSON). */
  async function inlineInText(text: string, depth: number): Promise<Json> {
    let out = text;
    for (const token of findStringEmbeds(text)) {
      const part = await inline(token.references, token.selector ?? {}, depth);
      if ("failed" in part) {
        const kept = fail(part.failed, token.token);
        out = out.replace(token.token, typeof kept === "string" ? kept : token.token);
        continue;
      }
      out = out.replace(token.token, typeof part.value === "string" ? part.value : JSON.stringify(part.value));
    }
    return out;
  }

  /** What one embed stands for: the named revision's data, through an environment key and a path, itself resolved. */
  async function inline(refs: Record<string, Reference>, selector: { key?: string; path?: string }, depth: number): Promise<Inlined> {
    if (depth >= limits.maxDepth) return { failed: `depth limit ${limits.maxDepth} reached` };
    if (info.embeds_resolved >= limits.maxEmbeds) return { failed: `embed limit ${limits.maxEmbeds} reached` };
    let target = await load(refs).catch((e: unknown) => (e instanceof HttpError ? e : Promise.reject(e)));
    if (target instanceof HttpError) return { failed: String(target.detail) };
    if (selector.key) {
      const entry = isObject(target) && isObject(target.references) ? target.references[selector.key] : undefined;
      if (!isObject(entry)) return { failed: `key ${selector.key} not found in the embedded environment` };
      target = await load(entry as Record<string, Reference>).catch((e: unknown) => (e instanceof HttpError ? e : Promise.reject(e)));
      if (target instanceof HttpError) return { failed: String(target.detail) };
    }
    info.references_used.push(refs);
    info.embeds_resolved += 1;
    info.depth_reached = Math.max(info.depth_reached, depth + 1);
    const part = selector.path ? getIn(target, dotPath(selector.path)) : target;
    if (part === undefined) return { failed: `path ${selector.path} not found in the embedded revision` };
    return { value: await walk(part, depth + 1) };
  }

  async function load(refs: Record<string, Reference>): Promise<Json> {
    // Testset data is stored as chunk lists, not as configuration: it cannot be embedded.
    for (const kind of kinds.filter((k) => k.family !== "testset")) {
      const n = kind.name;
      if (!refs[n] && !refs[`${n}_variant`] && !refs[`${n}_revision`]) continue;
      const { revision } = await retrieveRevision(db, scope, kind, { artifact: refs[n], variant: refs[`${n}_variant`], revision: refs[`${n}_revision`] });
      return (revision.data ?? null) as Json;
    }
    throw badRequest(`no known entity in references ${JSON.stringify(Object.keys(refs))}`);
  }

  return { data: await walk(data, 0), info };
}
