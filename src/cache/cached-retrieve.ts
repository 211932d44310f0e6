import type { Scope } from "../accounts/project-defaults.ts";
import type { AppContext } from "../context.ts";
import type { Kind } from "../versioning/kind.ts";
import { retrieveRevision, type RetrieveRefs, type Retrieved } from "../versioning/resolve.ts";

/**
 * Reference resolution through the project's cache: the hot path of every client runtime that asks
 * "which revision is deployed?" costs no query while nothing in the project changes.
 */
export async function cachedRetrieve(ctx: AppContext, scope: Scope, kind: Kind, refs: RetrieveRefs): Promise<Retrieved> {
  const cache = ctx.cache;
  if (!cache) return retrieveRevision(ctx.db, scope, kind, refs);
  const key = `${kind.plural}\u0000${JSON.stringify(refs)}`;
  const hit = cache.get<Retrieved>(scope.projectId, key);
  if (hit) return hit;
  const generation = cache.generation(scope.projectId);
  const retrieved = await retrieveRevision(ctx.db, scope, kind, refs);
  cache.set(scope.projectId, key, retrieved, generation);
  return retrieved;
}

/** An entity tag for a read of an immutable revision: its id, what else the body names, and the read options. */
export function revisionTag(revisionId: string, context: string | undefined, options: Record<string, unknown>): string {
  const opts = Object.entries(options).filter(([, v]) => v !== undefined && v !== null).map(([k, v]) => `${k}=${v}`).join(",");
  return `"${revisionId}${context ? `@${context}` : ""}${opts ? `;${opts}` : ""}"`;
}

/** Whether an If-None-Match header names `tag` (a list of tags, or `*`). */
export function matchesTag(header: string | undefined, tag: string): boolean {
  if (!header) return false;
  return header.trim() === "*" || header.split(",").some((t) => t.trim().replace(/^W\//, "") === tag);
}
