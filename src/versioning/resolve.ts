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

export interface RetrievalInfo {
  references: Record<string, Reference>;
  selector?: { key: string };
}

export interface Retrieved {
  revision: RevisionRow;
  retrievalInfo: RetrievalInfo;
}

const given = (r: Reference | null | undefined): r is Reference =>
  !!r && !!(r.id || r.slug || (r.version !== undefined && r.version !== null));
const hasVersion = (r: Reference | null | undefined) => r?.version !== undefined && r?.version !== null;

/** Whether a lookup names an environment: such lookups answer 404 when nothing is deployed, never an empty answer. */
export const isEnvironmentBacked = (refs: RetrieveRefs) =>
  given(refs.environment) || given(refs.environmentVariant) || given(refs.environmentRevision);

export function parseVersion(version: string | number, field: string): number {
  const n = typeof version === "number" ? version : Number(String(version).replace(/^v/i, ""));
  if (!Number.isInteger(n) || n < 0) {
    throw unprocessable([{ loc: ["body", field, "version"], msg: `Version must be a whole number, got ${JSON.stringify(version)}`, type: "int_parsing" }]);
  }
  return n;
}

/** `{<kind>: {id, slug}, <kind>_variant: {id, slug}, <kind>_revision: {id, slug, version}}` of one revision. */
export function revisionReferences(kind: Kind, rev: RevisionRow): Record<string, Reference> {
  return {
    [kind.name]: { id: rev.artifact_id, slug: rev.artifact_slug },
    [`${kind.name}_variant`]: { id: rev.variant_id, slug: rev.variant_slug },
    [`${kind.name}_revision`]: revisionRef(rev),
  };
}

/**
 * Resolves exactly one revision. Any environment reference takes the environment path (the kind's
 * references then only check what it holds); otherwise the most specific reference wins: revision
 * over variant over artifact. References that name different things are a 400, not a guess.
 */
export async function retrieveRevision(db: Queryable, scope: Scope, kind: Kind, refs: RetrieveRefs): Promise<Retrieved> {
  if (isEnvironmentBacked(refs)) return retrieveDeployed(db, scope, kind, refs);
  if (refs.key) throw badRequest("A key selects inside an environment: give environment_ref (or its variant or revision ref) with it");
  const revision = await directRevision(db, scope, kind, refs);
  return { revision, retrievalInfo: { references: revisionReferences(kind, revision) } };
}

async function directRevision(db: Queryable, scope: Scope, kind: Kind, refs: RetrieveRefs): Promise<RevisionRow> {
  const r = kind.name;
  if (given(refs.revision)) {
    const rev = await revisionFromRef(db, scope, kind, refs);
    // revisionFromRef has checked the revision ref itself (its slug may name the variant's line).
    checkConsistent(kind, rev, { ...refs, revision: null });
    return rev;
  }
  if (given(refs.variant)) {
    if (hasVersion(refs.variant) && !refs.variant.id && !refs.variant.slug) throw badRequest(`${r}_variant_ref needs an id or slug`);
    const variant = await findVariant(db, scope, kind, refs.variant);
    const rev = await latestRevision(db, scope, variant.id);
    if (!rev) throw notFound(`${r} variant ${variant.slug} has no revision yet`);
    checkConsistent(kind, rev, refs);
    return rev;
  }
  if (given(refs.artifact)) {
    if (hasVersion(refs.artifact)) throw badRequest(`A version goes in ${r}_revision_ref (it counts on the ${r}'s default variant)`);
    const artifact = await findArtifact(db, scope, kind, refs.artifact);
    const variant = await defaultVariant(db, scope, kind, artifact.id);
    const rev = await latestRevision(db, scope, variant.id);
    if (!rev) throw notFound(`${r} ${artifact.slug} has no revision yet`);
    return rev;
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
  if (given(refs.artifact)) {
    const artifact = await findArtifact(db, scope, kind, refs.artifact);
    return findRevisionByVersion(db, scope, kind, (await defaultVariant(db, scope, kind, artifact.id)).id, version);
  }
  throw badRequest(`A revision version needs a ${kind.name}_variant_ref or ${kind.name}_ref to say which variant it counts in`);
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
  const clash = (level: string, ref: Reference | null | undefined, id: string, slug: string, version?: number) =>
    given(ref) && ((ref.id && ref.id !== id) || (ref.slug && ref.slug !== slug)
      || (version !== undefined && hasVersion(ref) && parseVersion(ref.version!, `${kind.name}_${level}ref`) !== version))
      ? badRequest(`${kind.name}_${level}ref does not match the revision it resolves to (${rev.id})`)
      : null;
  const error = clash("revision_", refs.revision, rev.id, rev.slug, rev.version)
    ?? clash("variant_", refs.variant, rev.variant_id, rev.variant_slug)
    ?? clash("", refs.artifact, rev.artifact_id, rev.artifact_slug);
  if (error) throw error;
}

/**
 * The revision an environment points at under `key` (default `{artifact_slug}.revision`). The key is
 * settled before any lookup; the kind's references, when given, must name what the key holds.
 */
async function retrieveDeployed(db: Queryable, scope: Scope, kind: Kind, refs: RetrieveRefs): Promise<Retrieved> {
  let key = refs.key ?? null;
  if (!key) {
    if (refs.artifact?.slug) key = `${refs.artifact.slug}.revision`;
    else if (refs.artifact?.id) {
      const artifact = await findArtifact(db, scope, kind, refs.artifact).catch(() => null);
      if (!artifact) throw badRequest(`Cannot derive the key: ${kind.name} ${refs.artifact.id} not found`);
      key = `${artifact.slug}.revision`;
    } else throw badRequest(`Give a key, or a ${kind.name}_ref whose slug names the default key {${kind.name}_slug}.revision`);
  }
  const envRevision = await environmentRevision(db, scope, refs);
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
        ...revisionReferences(kind, revision),
      },
      selector: { key },
    },
  };
}

/**
 * The environment revision that environment references name: a revision, a variant's latest, a version
 * of the environment's default variant (`environment_ref: {slug, version}`, as the SDK sends), or its latest.
 */
export async function environmentRevision(db: Queryable, scope: Scope, refs: RetrieveRefs): Promise<RevisionRow> {
  return (await retrieveRevision(db, scope, environments, given(refs.environmentRevision)
    ? { revision: refs.environmentRevision, variant: refs.environmentVariant, artifact: refs.environmentVariant ? null : refs.environment }
    : given(refs.environmentVariant) ? { variant: refs.environmentVariant }
    : hasVersion(refs.environment)
      ? { artifact: { id: refs.environment?.id, slug: refs.environment?.slug }, revision: { version: refs.environment!.version } }
      : { artifact: refs.environment })).revision;
}
