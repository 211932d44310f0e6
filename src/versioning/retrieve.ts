import type { Scope } from "../accounts/scope.ts";
import type { Queryable } from "../db/database.ts";
import { HttpError } from "../errors.ts";
import type { Kind } from "./kind.ts";
import { isEnvironmentBacked, retrieveRevision, type RetrievalInfo, type RetrieveRefs } from "./resolve.ts";
import type { RevisionRow } from "./rows.ts";

/** What a retrieve answers: the revision (null when a direct lookup finds none) and how it was found. */
export interface RetrieveAnswer {
  revision: RevisionRow | null;
  retrievalInfo: RetrievalInfo | null;
}

/**
 * The lookup behind `/{kind}s/revisions/retrieve`. A direct lookup that finds nothing (or only another
 * project's rows) answers an empty result, which clients read as "not created yet"; environment-backed
 * lookups keep their 404. Application and evaluator lookups read any workflow revision.
 */
export async function retrieveAnswer(db: Queryable, scope: Scope, kind: Kind, refs: RetrieveRefs): Promise<RetrieveAnswer> {
  const lookup = kind.family === "workflow" ? { ...kind, flags: {} } : kind;
  try {
    return await retrieveRevision(db, scope, lookup, refs);
  } catch (e) {
    if (e instanceof HttpError && e.statusCode === 404 && !isEnvironmentBacked(refs)) return { revision: null, retrievalInfo: null };
    throw e;
  }
}
