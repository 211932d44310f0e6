import type { Scope } from "../accounts/project-defaults.ts";
import type { Queryable } from "../db/database.ts";
import { createArtifact, findArtifact, queryArtifacts, type ArtifactCreate, type ArtifactQuery } from "./artifacts.ts";
import { commitRevision } from "./commit.ts";
import type { Kind, ReadContext } from "./kind.ts";
import { editMetadata, setArchived, type MetadataEdit } from "./lifecycle.ts";
import { artifactRecord } from "./records.ts";
import { latestRevision } from "./revisions.ts";
import type { ArtifactRow, RevisionRow } from "./rows.ts";
import { createVariant, defaultVariant } from "./variants.ts";

/**
 * The simple surface: artifact, default variant and latest revision as one flat record, for clients
 * that want the current state without lineage.
 */
export async function createSimple(tx: Queryable, scope: Scope, kind: Kind, input: ArtifactCreate & { data?: unknown; message?: string | null }) {
  const artifact = await createArtifact(tx, scope, kind, input);
  const variant = await createVariant(tx, scope, kind, { id: artifact.id }, { slug: `${artifact.slug}.default`, name: "default", flags: input.flags });
  await commitRevision(tx, scope, kind, { variantId: variant.id, data: input.data ?? null, flags: input.flags, message: input.message ?? "Initial commit" });
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
export async function editSimple(tx: Queryable, scope: Scope, kind: Kind, id: string, edit: MetadataEdit & { data?: unknown }) {
  await editMetadata(tx, scope, kind, "artifact", id, edit);
  if (edit.data !== undefined && edit.data !== null) {
    const variant = await defaultVariant(tx, scope, kind, id);
    await commitRevision(tx, scope, kind, { variantId: variant.id, data: edit.data, message: "Edit" });
  }
}

export async function archiveSimple(db: Queryable, scope: Scope, kind: Kind, id: string, archived: boolean) {
  await setArchived(db, scope, kind, "artifact", id, archived);
}

export async function querySimple(read: ReadContext, kind: Kind, q: ArtifactQuery) {
  const { items, windowing } = await queryArtifacts(read.db, read.scope, kind, q);
  return { items: await Promise.all(items.map((a) => readSimple(read, kind, a))), windowing };
}
