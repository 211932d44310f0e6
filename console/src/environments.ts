/** Environments as a board: which application revision each environment serves, deploys, and each environment's history. */
import { api } from "./api.ts";
import { queryArtifacts, type Artifact } from "./artifacts.ts";
import type { Revision } from "./revisions.ts";

/** What an environment serves for one application (an entry of its revision's `data.references`). */
export interface Deployed {
  key: string;
  application: { id: string; slug: string };
  application_variant?: { id: string; slug: string };
  application_revision: { id: string; slug?: string; version: string };
}

export interface EnvironmentState {
  environment: Artifact;
  revision: Revision | null;
  /** By application id. */
  deployed: Map<string, Deployed>;
}

const ORDER = ["development", "staging", "production"];
/** The usual path first (development → staging → production), then the others by slug. */
export const byPromotionOrder = (a: Artifact, b: Artifact) => {
  const rank = (e: Artifact) => (ORDER.includes(e.slug) ? ORDER.indexOf(e.slug) : ORDER.length);
  return rank(a) - rank(b) || a.slug.localeCompare(b.slug);
};

async function all(kind: "applications" | "environments", signal?: AbortSignal): Promise<Artifact[]> {
  const items: Artifact[] = [];
  let next: string | null = null;
  do {
    const page = await queryArtifacts(kind, { next, limit: 100 }, signal);
    items.push(...page.items);
    next = page.next;
  } while (next);
  return items;
}

export async function environmentState(environment: Artifact, signal?: AbortSignal): Promise<EnvironmentState> {
  const answer = await api<Record<string, any>>("POST", "/environments/revisions/retrieve", { environment_ref: { id: environment.id } }, { signal });
  const revision: Revision | null = answer.environment_revision ?? null;
  const deployed = new Map<string, Deployed>();
  for (const [key, entry] of Object.entries<any>(revision?.data?.references ?? {})) {
    if (!entry?.application?.id || !entry.application_revision?.id) continue;
    // The application's own key (`{slug}.revision`) wins over another key naming the same application.
    if (!deployed.has(entry.application.id) || key === `${entry.application.slug}.revision`) deployed.set(entry.application.id, { key, ...entry });
  }
  return { environment, revision, deployed };
}

/** Every environment with what it serves, in promotion order. */
export async function loadEnvironments(signal?: AbortSignal): Promise<EnvironmentState[]> {
  const environments = (await all("environments", signal)).sort(byPromotionOrder);
  return Promise.all(environments.map((e) => environmentState(e, signal)));
}

/** Every application, and every environment with what it serves, in promotion order. */
export async function loadBoard(signal?: AbortSignal): Promise<{ applications: Artifact[]; environments: EnvironmentState[] }> {
  const [applications, environments] = await Promise.all([all("applications", signal), all("environments", signal)]);
  environments.sort(byPromotionOrder);
  applications.sort((a, b) => (a.name || a.slug).localeCompare(b.name || b.slug));
  return { applications, environments: await Promise.all(environments.map((e) => environmentState(e, signal))) };
}

/** Points `environmentId` at an application revision (a new environment revision). */
export async function deployRevision(revisionId: string, environmentId: string, message?: string): Promise<void> {
  await api("POST", "/applications/revisions/deploy", {
    application_revision_ref: { id: revisionId }, environment_ref: { id: environmentId }, ...(message ? { message } : {}),
  });
}

/** An application's revisions over all its variants, newest first (one page). */
export async function applicationRevisions(applicationId: string, signal?: AbortSignal): Promise<Revision[]> {
  const answer = await api<Record<string, any>>("POST", "/applications/revisions/query", {
    application_refs: [{ id: applicationId }], windowing: { limit: 100 },
  }, { signal });
  return (answer.application_revisions ?? []).filter((r: Revision) => Number(r.version) > 0);
}

/** An environment's history, newest first: each revision is one change of what it serves. */
export async function environmentHistory(environmentId: string, signal?: AbortSignal): Promise<Revision[]> {
  const answer = await api<Record<string, any>>("POST", "/environments/revisions/log", { environment: { environment_id: environmentId } }, { signal });
  return answer.environment_revisions ?? [];
}
