import type { Scope } from "../accounts/scope.ts";
import type { AppContext } from "../context.ts";
import type { Kind } from "../versioning/kind.ts";
import { retrieveRevision, type RetrieveRefs, type Retrieved } from "../versioning/resolve.ts";
import { retrieveAnswer, type RetrieveAnswer } from "../versioning/retrieve.ts";

// A resolution is cached under the text of the retrieve body that names its references (the hot path
// looks the body up as it came, building no key) or, for other callers, under the references' JSON,
// in a namespace of its own.
const namespaceOf = (kind: Kind, byBody: boolean) => (byBody ? kind.plural : `${kind.plural} refs`);

/**
 * Reference resolution through the project's cache: the hot path of every client runtime that asks
 * "which revision is deployed?" costs no query while nothing in the project changes. `bodyText`,
 * when given, is the text of the request whose references `refs` are.
 */
export function cachedRetrieve(ctx: AppContext, scope: Scope, kind: Kind, refs: RetrieveRefs): Promise<Retrieved> {
  return throughCache(ctx, scope, kind, refs, null, retrieveRevision);
}

/** A retrieve route's answer (an empty one when a direct lookup finds nothing), cached under its body's text. */
export function cachedAnswer(ctx: AppContext, scope: Scope, kind: Kind, refs: RetrieveRefs, bodyText: string | null): Promise<RetrieveAnswer> {
  return throughCache(ctx, scope, kind, refs, bodyText, retrieveAnswer);
}

async function throughCache<T extends object>(
  ctx: AppContext, scope: Scope, kind: Kind, refs: RetrieveRefs, bodyText: string | null,
  lookup: (db: AppContext["db"], scope: Scope, kind: Kind, refs: RetrieveRefs) => Promise<T>,
): Promise<T> {
  const cache = ctx.cache;
  if (!cache) return lookup(ctx.db, scope, kind, refs);
  const namespace = namespaceOf(kind, bodyText != null);
  const key = bodyText ?? JSON.stringify(refs);
  const hit = cache.get<T>(scope.projectId, namespace, key);
  if (hit) return hit;
  const generation = cache.generation(scope.projectId);
  const retrieved = await lookup(ctx.db, scope, kind, refs);
  cache.set(scope.projectId, namespace, key, retrieved, generation);
  return retrieved;
}

/** The cached answer to a retrieve body, without a promise (undefined when it must be read). */
export function peekRetrieve(ctx: AppContext, scope: Scope, kind: Kind, bodyText: string): RetrieveAnswer | undefined {
  return ctx.cache?.get<RetrieveAnswer>(scope.projectId, namespaceOf(kind, true), bodyText);
}

// A cached resolution is one object for as long as it is valid: its tag is worked out once.
const retrievedTags = new WeakMap<RetrieveAnswer, string>();

/** The ETag of a retrieve answer: the revision, its last metadata edit, the environment revision it was deployed by, and the read options. */
export function retrievedTag(r: Retrieved | RetrieveAnswer, options: Record<string, unknown>): string | null {
  if (!r.revision) return null;
  let base = retrievedTags.get(r);
  if (base === undefined) {
    const edited = new Date(r.revision.updated_at ?? r.revision.created_at).getTime();
    base = `${r.revision.id}@${edited}${r.retrievalInfo?.selector ? `@${r.retrievalInfo.references.environment_revision?.id}` : ""}`;
    retrievedTags.set(r, base);
  }
  return revisionTag(base, undefined, options);
}

/** An entity tag for a read of an immutable revision: its id, what else the body names, and the read options. */
export function revisionTag(revisionId: string, context: string | undefined, options: Record<string, unknown>): string {
  let opts = "";
  for (const k in options) {
    const v = options[k];
    if (v !== undefined && v !== null) opts += `${opts ? "," : ""}${k}=${v}`;
  }
  return `"${revisionId}${context ? `@${context}` : ""}${opts ? `;${opts}` : ""}"`;
}

/** Whether an If-None-Match header names `tag` (a list of tags, or `*`). */
export function matchesTag(header: string | undefined, tag: string): boolean {
  if (!header) return false;
  if (header === tag) return true;
  return header.trim() === "*" || header.split(",").some((t) => t.trim().replace(/^W\//, "") === tag);
}
