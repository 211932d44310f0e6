import type { Scope } from "../accounts/scope.ts";
import type { Queryable } from "../db/database.ts";
import { HttpError } from "../errors.ts";
import type { Reference } from "../versioning/filters.ts";
import type { Kind } from "../versioning/kind.ts";
import { retrieveRevision } from "../versioning/resolve.ts";

/**
 * A query is a saved trace filter (`filtering`, `windowing`, `formatting`, or a fixed list of trace ids), versioned
 * like every other kind so that a live evaluation or an annotation queue can pin the revision it reads.
 * Queries are never deployed and embed nothing.
 */
export const queries: Kind = {
  name: "query",
  plural: "queries",
  family: "query",
  aliases: [],
  flags: {},
};

/** What a query revision holds. */
export interface QueryData {
  formatting?: { focus?: string | null; format?: string | null } | null;
  filtering?: { operator?: string | null; conditions?: unknown[] } | null;
  windowing?: { oldest?: unknown; newest?: unknown; next?: unknown; limit?: number | null } | null;
  trace_ids?: string[] | null;
}

/** The data of the query revision the references name (the variant's latest, the artifact's default), or null. */
export async function savedQuery(
  db: Queryable, scope: Scope, refs: { artifact?: Reference; variant?: Reference; revision?: Reference },
): Promise<QueryData | null> {
  try {
    const { revision } = await retrieveRevision(db, scope, queries, refs);
    return revision ? ((revision.data ?? {}) as QueryData) : null;
  } catch (error) {
    if (error instanceof HttpError && error.statusCode === 404) return null;
    throw error;
  }
}
