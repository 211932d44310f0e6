import type { Scope } from "../accounts/scope.ts";
import type { Config } from "../config.ts";
import type { Queryable } from "../db/database.ts";
import { createArtifact, findArtifact, queryArtifacts, type ArtifactCreate, type ArtifactQuery } from "./artifacts.ts";
import { commitRevision } from "./commit.ts";
import type { Kind, ReadContext } from "./kind.ts";
import { editMetadata, setArchived, setGuarded, type MetadataEdit } from "./lifecycle.ts";
import { artifactRecord } from "./records.ts";
import { latestRevision } from "./revisions.ts";
import { REVISION_COLUMNS, REVISION_FROM, type ArtifactRow, type RevisionRow } from "./rows.ts";
import { createVariant, defaultVariant } from "./variants.ts";

/**
 * The simple surface: artifact, default variant and latest revision as one flat record, for clients
 * that want the current state without lineage. As in the reference, a simple create seeds the variant
 * with an empty version 0 ("Initial commit"), so the first configured revision is version 1 in both.
 */
export async function createSimple(
  tx: Queryable, scope: Scope, kind: Kind, input: ArtifactCreate & { data?: unknown; message?: string | null },
  config?: Config, artifactId?: string,
) {
  // A guarded artifact refuses commits: one created guarded gets the flag once its first revisions are in.
  const { is_guarded: guarded, ...flags } = input.flags ?? {};
  const artifact = await createArtifact(tx, scope, kind, { ...input, flags: input.flags && flags }, artifactId);
  const variant = await createVariant(tx, scope, kind, { id: artifact.id }, { slug: `${artifact.slug}.default`, name: "default", flags: input.flags });
  // The placeholder is stored as is: a kind's preparation would turn "nothing yet" into an empty payload.
  await commitRevision(tx, scope, { ...kind, prepare: undefined }, { variantId: variant.id, data: null, flags: input.flags, message: "Initial commit" });
  await commitRevision(tx, scope, kind, {
    variantId: variant.id, data: input.data ?? null, flags: input.flags, config, message: input.message ?? null,
  });
  if (guarded === true) await setGuarded(tx, scope, kind, artifact.id, true);
  return artifact.id;
}

export async function readSimple(read: ReadContext, kind: Kind, artifact: ArtifactRow) {
  const variant = await defaultVariant(read.db, read.scope, kind, artifact.id);
  const revision = await latestRevision(read.db, read.scope, variant.id);
  return simpleRecord(read, kind, artifact, variant.id, revision);
}

async function simpleRecord(read: ReadContext, kind: Kind, artifact: ArtifactRow, variantId: string, revision: RevisionRow | null) {
  const data = revision ? (kind.present ? await kind.present(revision, read) : revision.data) : null;
  return {
    ...artifactRecord(kind, artifact),
    variant_id: variantId,
    revision_id: revision?.id ?? null,
    version: revision ? String(revision.version) : null,
    data,
  };
}

export async function getSimple(read: ReadContext, kind: Kind, id: string) {
  return readSimple(read, kind, await findArtifact(read.db, read.scope, kind, { id }));
}

/** Metadata edits apply to the artifact; new `data` becomes a new revision on the default variant. */
export async function editSimple(
  tx: Queryable, scope: Scope, kind: Kind, id: string, edit: MetadataEdit & { data?: unknown }, config?: Config,
) {
  await editMetadata(tx, scope, kind, "artifact", id, edit);
  if (edit.data !== undefined && edit.data !== null) {
    const variant = await defaultVariant(tx, scope, kind, id);
    await commitRevision(tx, scope, kind, { variantId: variant.id, data: edit.data, message: "Edit", config });
  }
}

export async function archiveSimple(db: Queryable, scope: Scope, kind: Kind, id: string, archived: boolean) {
  await setArchived(db, scope, kind, "artifact", id, archived);
}

/** A page of simple records in three queries (artifacts, their default variants, those variants' latest revisions). */
export async function querySimple(read: ReadContext, kind: Kind, q: ArtifactQuery) {
  const { items, windowing } = await queryArtifacts(read.db, read.scope, kind, q);
  const variants = await read.db.query<{ artifact_id: string; id: string }>(
    `SELECT DISTINCT ON (artifact_id) artifact_id, id FROM variants
     WHERE project_id = $1 AND artifact_id = ANY($2::uuid[]) ORDER BY artifact_id, (deleted_at IS NOT NULL), id`,
    [read.scope.projectId, items.map((a) => a.id)],
  );
  const latest = await read.db.query<RevisionRow>(
    `SELECT DISTINCT ON (r.variant_id) ${REVISION_COLUMNS} FROM ${REVISION_FROM}
     WHERE r.project_id = $1 AND r.variant_id = ANY($2::uuid[]) AND r.deleted_at IS NULL ORDER BY r.variant_id, r.version DESC`,
    [read.scope.projectId, variants.map((v) => v.id)],
  );
  const variantOf = new Map(variants.map((v) => [v.artifact_id, v.id]));
  const revisionOf = new Map(latest.map((r) => [r.variant_id, r]));
  const records = await Promise.all(items.map((a) => {
    const variantId = variantOf.get(a.id);
    return variantId ? simpleRecord(read, kind, a, variantId, revisionOf.get(variantId) ?? null) : { ...artifactRecord(kind, a), variant_id: null, revision_id: null, version: null, data: null };
  }));
  return { items: records, windowing };
}
