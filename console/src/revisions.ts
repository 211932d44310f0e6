/** Revisions of workflow-family artifacts (applications, workflows, evaluators): read, list, commit; a 422's issues by field. */
import { api, singular, TesseraError, type ArtifactKind } from "./api.ts";
import type { Variant } from "./artifacts.ts";

export interface Revision {
  id: string;
  slug: string;
  version: number | string;
  message: string | null;
  artifact_id: string;
  variant_id: string;
  created_at: string | null;
  data: Record<string, any> | null;
}

/** Kinds whose revisions hold workflow data (a URI, parameters, schemas), editable in the console. */
export type WorkflowKind = "applications" | "workflows" | "evaluators";
export const isWorkflowKind = (kind: string): kind is WorkflowKind => kind === "applications" || kind === "workflows" || kind === "evaluators";

export async function fetchVariant(kind: ArtifactKind, variantId: string, signal?: AbortSignal): Promise<Variant> {
  const answer = await api<Record<string, any>>("GET", `/${kind}/variants/${encodeURIComponent(variantId)}`, undefined, { signal });
  return answer[`${singular(kind)}_variant`];
}

export async function fetchRevision(kind: ArtifactKind, revisionId: string, signal?: AbortSignal): Promise<Revision> {
  const answer = await api<Record<string, any>>("GET", `/${kind}/revisions/${encodeURIComponent(revisionId)}`, undefined, { signal });
  return answer[`${singular(kind)}_revision`];
}

/** The newest revision of a variant. */
export async function latestRevision(kind: ArtifactKind, variantId: string, signal?: AbortSignal): Promise<Revision> {
  const answer = await api<Record<string, any>>("POST", `/${kind}/revisions/retrieve`, { [`${singular(kind)}_variant_ref`]: { id: variantId } }, { signal });
  return answer[`${singular(kind)}_revision`];
}

/** The revisions of an artifact, newest first (at most `limit`). */
export async function queryRevisions(kind: ArtifactKind, artifactId: string, signal?: AbortSignal, limit = 100): Promise<Revision[]> {
  const n = singular(kind);
  const answer = await api<Record<string, any>>("POST", `/${kind}/revisions/query`, {
    [`${n}_refs`]: [{ id: artifactId }], windowing: { limit, order: "descending" },
  }, { signal });
  return answer[`${n}_revisions`] ?? [];
}

/** Commits `data` as the next revision of a variant, with a message; answers the new revision. */
export async function commitRevision(kind: ArtifactKind, variantId: string, data: unknown, message: string): Promise<Revision> {
  const n = singular(kind);
  const answer = await api<Record<string, any>>("POST", `/${kind}/revisions/commit`, {
    [`${n}_revision_commit`]: { [`${n}_variant_id`]: variantId, message: message || null, data },
  });
  return answer[`${n}_revision`];
}

/**
 * A refused commit's issues by field: a 422 whose `detail` lists `{loc, msg}` gives each issue to the field
 * `fieldOf(path)` names (the path after `body` and the commit's wrapper; `withPath` keeps the path in the message),
 * or null when no field shows it;
 * whatever no field takes is left in `rest`.
 */
export function issuesByField(
  error: unknown, fieldOf: (path: (string | number)[]) => string | { field: string; withPath: true } | null,
): { fields: Record<string, string>; rest: string[] } {
  const fields: Record<string, string> = {};
  const rest: string[] = [];
  if (!(error instanceof TesseraError) || error.status !== 422 || !Array.isArray(error.detail)) return { fields, rest };
  for (const issue of error.detail as { loc?: unknown; msg?: unknown }[]) {
    const loc = Array.isArray(issue?.loc) ? (issue.loc as (string | number)[]) : [];
    const path = loc[0] === "body" ? loc.slice(2) : loc;
    const msg = typeof issue?.msg === "string" ? issue.msg : JSON.stringify(issue);
    const found = fieldOf(path);
    const field = typeof found === "string" ? found : found?.field;
    const text = typeof found === "object" && found && path.length ? `${path.join(".")}: ${msg}` : msg;
    if (field) fields[field] = fields[field] ? `${fields[field]}; ${text}` : text;
    else rest.push(path.length ? `${path.join(".")}: ${msg}` : msg);
  }
  return { fields, rest };
}
