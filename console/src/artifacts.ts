/** Artifacts (applications, workflows, evaluators, testsets, environments) through `/api/{kind}/…`. */
import { api, singular, type ArtifactKind } from "./api.ts";

export interface Artifact {
  id: string;
  slug: string;
  name: string | null;
  description: string | null;
  created_at: string | null;
  updated_at: string | null;
  deleted_at: string | null;
  flags?: Record<string, unknown> | null;
}

export interface Variant extends Artifact {
  artifact_id: string;
}

export interface ArtifactPage<T> {
  items: T[];
  /** Where the next page starts (windowing.next), null on the last page. */
  next: string | null;
}

export const KIND_TITLES: Record<ArtifactKind, { one: string; many: string }> = {
  applications: { one: "Application", many: "Applications" },
  workflows: { one: "Workflow", many: "Workflows" },
  evaluators: { one: "Evaluator", many: "Evaluators" },
  testsets: { one: "Testset", many: "Testsets" },
  environments: { one: "Environment", many: "Environments" },
};

export const isArtifactKind = (value: string | null): value is ArtifactKind => !!value && value in KIND_TITLES;

/** One page of a kind's artifacts, newest first: `search` matches part of the name or slug. */
export async function queryArtifacts(
  kind: ArtifactKind, options: { search?: string; archived?: boolean; next?: string | null; limit?: number }, signal?: AbortSignal,
): Promise<ArtifactPage<Artifact>> {
  const n = singular(kind);
  const body = {
    [n]: options.search ? { search: options.search } : null,
    include_archived: options.archived ?? false,
    windowing: { limit: options.limit ?? 50, next: options.next ?? null },
  };
  const answer = await api<Record<string, any>>("POST", `/${kind}/query`, body, { signal });
  return { items: answer[kind] ?? [], next: answer.windowing?.next ?? null };
}

export async function fetchArtifact(kind: ArtifactKind, id: string, signal?: AbortSignal): Promise<Artifact> {
  const answer = await api<Record<string, any>>("GET", `/${kind}/${encodeURIComponent(id)}`, undefined, { signal });
  return answer[singular(kind)];
}

/** An artifact's variants (archived ones too), oldest first. */
export async function queryVariants(kind: ArtifactKind, artifactId: string, signal?: AbortSignal): Promise<Variant[]> {
  const n = singular(kind);
  const items: Variant[] = [];
  let next: string | null = null;
  do {
    const answer: Record<string, any> = await api("POST", `/${kind}/variants/query`, {
      [`${n}_refs`]: [{ id: artifactId }], include_archived: true, windowing: { limit: 100, next, order: "ascending" },
    }, { signal });
    items.push(...(answer[`${n}_variants`] ?? []));
    next = answer.windowing?.next ?? null;
  } while (next);
  return items;
}
