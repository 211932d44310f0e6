import type { Scope } from "../accounts/scope.ts";
import type { Queryable } from "../db/database.ts";
import { badRequest, notFound, unprocessable } from "../errors.ts";
import { environments, type EnvironmentData } from "../kinds/environments.ts";
import { findArtifact } from "./artifacts.ts";
import type { Reference } from "./filters.ts";
import type { Kind } from "./kind.ts";
import { revisionRef } from "./records.ts";
import { findRevision, findRevisionByVersion, latestRevision } from "./revisions.ts";
import type { RevisionRow } from "./rows.ts";
import { defaultVariant, findVariant } from "./variants.ts";

export interface RetrieveRefs {
  artifact?: Reference | null;
  variant?: Reference | null;
  revision?: Reference | null;
  environment?: Reference | null;
  environmentVariant?: Reference | null;
  environmentRevision?: Reference | null;
  key?: string | null;
}

export interface Retrieved {
  revision: RevisionRow;
  retrievalInfo: { references: Record<string, Reference>; selector?: { key: string } } | null;
}

const given = (r: Reference | null | undefined): r is Reference => !!r && !!(r.id || r.slug || (r.version !== undefined && r.version !== null));

export function parseVersion(version: string | number, field: string): number {
  const n = typeof version === "number" ? version : Number(String(version).replace(/^v/i, ""));
  if (!Number.isInteger(n) || n < 0) throw unprocessable([{ loc: ["body", field, "version"], msg: `Version must be a whole number, got ${JSON.stringify(version)}`, type: "int_parsing" }]);
  return n;
}

/**
 * Resolves exactly one revision. The most specific reference wins: revision over variant over
 * environment over artifact. References that name different things are a 400, not a guess.
 */
export async function retrieveRevision(db: Queryable, scope: Scope, kind: Kind, refs: RetrieveRefs): Promise<Retrieved> {
  const r = kind.name;
  if (given(refs.revision)) {
    const rev = await revisionFromRef(db, scope, kind, refs);
    checkConsistent(kind, rev, refs);
    return { revision: rev, retrievalInfo: null };
  }
  if (given(refs.variant)) {
    if (refs.variant.version !== undefined && refs.variant.version !== null && !refs.variant.id && !refs.variant.slug) throw badRequest(`${r}_variant_ref needs an id or slug`);
    const variant = await findVariant(db, scope, kind, refs.variant);
    const rev = await latestRevision(db, scope, variant.id);
    if (!rev) throw notFound(`${r} variant ${variant.slug} has no revision yet`);
    checkConsistent(kind, rev, refs);
    return { revision: rev, retrievalInfo: null };
  }
  if (given(refs.environment) || given(refs.environmentVariant) || given(refs.environmentRevision)) {
    return retrieveDeployed(db, scope, kind, refs);
  }
  if (given(refs.artifact)) {
    if (refs.artifact.version !== undefined && refs.artifact.version !== null) throw badRequest(`A version needs a ${r}_variant_ref (or use ${r}_revision_ref with a variant)`);
    const artifact = await findArtifact(db, scope, kind, refs.artifact);
    const variant = await defaultVariant(db, scope, kind, artifact.id);
    const rev = await latestRevision(db, scope, variant.id);
    if (!rev) throw notFound(`${r} ${artifact.slug} has no revision yet`);
    return { revision: rev, retrievalInfo: null };
  }
  throw badRequest(`Give one of ${r}_revision_ref, ${r}_variant_ref, ${r}_ref or environment_ref`);
}

async function revisionFromRef(db: Queryable, scope: Scope, kind: Kind, refs: RetrieveRefs): Promise<RevisionRow> {
  const ref = refs.revision!;
  if (ref.slug && !ref.id && ref.version !== undefined && ref.version !== null) {
    const bySlug = await findRevision(db, scope, kind, ref).catch(() => null);
    if (!bySlug) return revisionInNamedLine(db, scope, kind, ref.slug, parseVersion(ref.version, `${kind.name}_revision_ref`));
  }
  if (ref.id || ref.slug) {
    const rev = await findRevision(db, scope, kind, ref);
    if (ref.version !== undefined && ref.version !== null && parseVersion(ref.version, `${kind.name}_revision_ref`) !== rev.version) {
      throw badRequest(`${kind.name}_revision_ref names version ${ref.version} but revision ${rev.id} is version ${rev.version}`);
    }
    return rev;
  }
  const version = parseVersion(ref.version!, `${kind.name}_revision_ref`);
  if (given(refs.variant)) return findRevisionByVersion(db, scope, kind, (await findVariant(db, scope, kind, refs.variant)).id, version);
  throw badRequest(`A revision version needs a ${kind.name}_variant_ref to say which variant it counts in`);
}

/** `{slug, version}` where the slug names a variant (or an artifact's default variant) rather than a revision. */
async function revisionInNamedLine(db: Queryable, scope: Scope, kind: Kind, slug: string, version: number): Promise<RevisionRow> {
  const variant = await findVariant(db, scope, kind, { slug }).catch(async () => {
    const artifact = await findArtifact(db, scope, kind, { slug }).catch(() => null);
    if (!artifact) throw notFound(`No ${kind.name} revision, variant or ${kind.name} has slug "${slug}"`);
    return defaultVariant(db, scope, kind, artifact.id);
  });
  return findRevisionByVersion(db, scope, kind, variant.id, version);
}

function checkConsistent(kind: Kind, rev: RevisionRow, refs: RetrieveRefs): void {
  const clash = (level: string, ref: Reference | null | undefined, id: string, slug: string) =>
    given(ref) && ((ref.id && ref.id !== id) || (ref.slug && ref.slug !== slug))
      ? badRequest(`${kind.name}_${level}ref does not match the revision it resolves to (${rev.id})`)
      : null;
  const error = clash("variant_", refs.variant, rev.variant_id, rev.variant_slug) ?? clash("", refs.artifact, rev.artifact_id, rev.artifact_slug);
  if (error) throw error;
}

/** The revision an environment points at under `key` (default `{artifact_slug}.revision`). */
async function retrieveDeployed(db: Queryable, scope: Scope, kind: Kind, refs: RetrieveRefs): Promise<Retrieved> {
  const envRevision = await environmentRevision(db, scope, refs);
  let key = refs.key ?? null;
  if (!key) {
    if (!given(refs.artifact)) throw badRequest(`Give a key, or a ${kind.name}_ref whose slug names the default key {${kind.name}_slug}.revision`);
    key = `${(await findArtifact(db, scope, kind, refs.artifact)).slug}.revision`;
  }
  const entry = (envRevision.data as EnvironmentData | null)?.references?.[key];
  if (!entry) throw notFound(`Environment ${envRevision.artifact_slug} has nothing deployed under key "${key}"`);
  const target = entry[`${kind.name}_revision`] ?? Object.entries(entry).find(([name]) => name.endsWith("_revision"))?.[1];
  if (!target?.id) throw notFound(`Environment ${envRevision.artifact_slug} key "${key}" holds no revision reference`);
  const revision = await findRevision(db, scope, kind, { id: target.id });
  checkConsistent(kind, revision, refs);
  return {
    revision,
    retrievalInfo: {
      references: {
        environment: { id: envRevision.artifact_id, slug: envRevision.artifact_slug },
        environment_variant: { id: envRevision.variant_id, slug: envRevision.variant_slug },
        environment_revision: revisionRef(envRevision),
        ...entry,
      },
      selector: { key },
    },
  };
}

export async function environmentRevision(db: Queryable, scope: Scope, refs: RetrieveRefs): Promise<RevisionRow> {
  const envKind = environments;
  if (given(refs.environmentRevision)) {
    return retrieveRevision(db, scope, envKind, {
      revision: refs.environmentRevision, variant: refs.environmentVariant,
      artifact: refs.environmentVariant ? null : refs.environment,
    }).then((r) => r.revision);
  }
  if (given(refs.environmentVariant)) return (await retrieveRevision(db, scope, envKind, { variant: refs.environmentVariant })).revision;
  return (await retrieveRevision(db, scope, envKind, { artifact: refs.environment })).revision;
}
