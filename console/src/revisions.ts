/**
 * Revisions of any kind through `/api/{kind}/revisions/…`: a variant's timeline, one revision, diff, revert, fork,
 * commit; a refused commit's issues by field.
 */
import { api, singular, TesseraError, type ArtifactKind } from "./api.ts";
import type { Variant } from "./artifacts.ts";

export interface Revision {
  id: string;
  slug: string;
  version: number | string;
  author: string | null;
  date: string | null;
  message: string | null;
  parent_id?: string | null;
  artifact_id: string;
  artifact_slug: string;
  variant_id: string;
  variant_slug: string;
  deleted_at: string | null;
  created_at?: string | null;
  data?: Record<string, any> | null;
}

/** One page of a variant's revisions, newest first; `next` starts the following page (null on the last). */
export async function queryRevisions(
  kind: ArtifactKind, variantId: string, options: { next?: string | null; limit?: number }, signal?: AbortSignal,
): Promise<{ items: Revision[]; next: string | null }> {
  const n = singular(kind);
  const answer = await api<Record<string, any>>("POST", `/${kind}/revisions/query`, {
    [`${n}_variant_refs`]: [{ id: variantId }], include_archived: true, windowing: { limit: options.limit ?? 20, next: options.next ?? null },
  }, { signal });
  const items: Revision[] = answer[`${n}_revisions`] ?? [];
  // A full page may be the last one: the server still names where the next would start.
  return { items, next: items.length < (options.limit ?? 20) ? null : answer.windowing?.next ?? null };
}

/** A revision with its data. */
export async function fetchRevision(kind: ArtifactKind, id: string, signal?: AbortSignal): Promise<Revision> {
  const answer = await api<Record<string, any>>("GET", `/${kind}/revisions/${encodeURIComponent(id)}`, undefined, { signal });
  return answer[`${singular(kind)}_revision`];
}

/** The server's diff of two revisions (testsets: rows added, removed and changed). */
export async function diffRevisions(kind: ArtifactKind, base: string, target: string, signal?: AbortSignal): Promise<Record<string, any>> {
  const answer = await api<Record<string, any>>("POST", `/${kind}/revisions/diff`, { base: { id: base }, target: { id: target } }, { signal });
  return answer.diff;
}

/** A new revision on the revision's variant whose data equals the revision's. */
export async function revertTo(kind: ArtifactKind, revisionId: string, message?: string): Promise<Revision> {
  const n = singular(kind);
  const answer = await api<Record<string, any>>("POST", `/${kind}/revisions/revert`, { [`${n}_revision_ref`]: { id: revisionId }, message: message ?? null });
  return answer[`${n}_revision`];
}

/** A new variant holding the lineage up to `revisionId`. */
export async function forkFrom(kind: ArtifactKind, revisionId: string, variant: { slug: string; name?: string }): Promise<Variant> {
  const n = singular(kind);
  const answer = await api<Record<string, any>>("POST", "/variants/fork", { [`${n}_revision_ref`]: { id: revisionId }, [`${n}_variant`]: variant });
  return answer[`${n}_variant`];
}

/** Archives or unarchives an artifact (`level` "artifact") or a variant. */
export async function setArchived(kind: ArtifactKind, level: "artifact" | "variant", id: string, archived: boolean): Promise<void> {
  const base = level === "artifact" ? `/${kind}` : `/${kind}/variants`;
  await api("POST", `${base}/${encodeURIComponent(id)}/${archived ? "archive" : "unarchive"}`);
}

/** Short text for a revision: `v2 · cap.default`. */
export const revisionLabel = (r: Pick<Revision, "version" | "variant_slug">) => `v${r.version} · ${r.variant_slug}`;

/** Kinds whose revisions hold workflow data (a URI, parameters, schemas), editable in the console. */
export type WorkflowKind = "applications" | "workflows" | "evaluators";
export const isWorkflowKind = (kind: string): kind is WorkflowKind => kind === "applications" || kind === "workflows" || kind === "evaluators";

export async function fetchVariant(kind: ArtifactKind, variantId: string, signal?: AbortSignal): Promise<Variant> {
  const answer = await api<Record<string, any>>("GET", `/${kind}/variants/${encodeURIComponent(variantId)}`, undefined, { signal });
  return answer[`${singular(kind)}_variant`];
}

/** The newest revision of a variant. */
export async function latestRevision(kind: ArtifactKind, variantId: string, signal?: AbortSignal): Promise<Revision> {
  const answer = await api<Record<string, any>>("POST", `/${kind}/revisions/retrieve`, { [`${singular(kind)}_variant_ref`]: { id: variantId } }, { signal });
  return answer[`${singular(kind)}_revision`];
}

/** The revisions of an artifact (every variant), newest first (at most `limit`). */
export async function queryArtifactRevisions(kind: ArtifactKind, artifactId: string, signal?: AbortSignal, limit = 100): Promise<Revision[]> {
  const n = singular(kind);
  const answer = await api<Record<string, any>>("POST", `/${kind}/revisions/query`, {
    [`${n}_refs`]: [{ id: artifactId }], windowing: { limit, order: "descending" },
  }, { signal });
  return answer[`${n}_revisions`] ?? [];
}

/**
 * Commits `data` as the next revision of a variant, with a message; answers the new revision. With `expectedLatest`
 * the server refuses (409) when that revision is no longer the variant's newest (`If-Match`).
 */
export async function commitRevision(
  kind: ArtifactKind, variantId: string, data: unknown, message: string, expectedLatest?: string,
): Promise<Revision> {
  const n = singular(kind);
  const headers = expectedLatest ? { "if-match": `"${expectedLatest}"` } : undefined;
  const answer = await api<Record<string, any>>("POST", `/${kind}/revisions/commit`, {
    [`${n}_revision_commit`]: { [`${n}_variant_id`]: variantId, message: message || null, data },
  }, { headers });
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
