import type { Kind } from "./kind.ts";
import type { ArtifactRow, RevisionRow, VariantRow } from "./rows.ts";

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

function lifecycle(row: ArtifactRow) {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    description: row.description,
    flags: row.flags,
    tags: row.tags,
    meta: row.meta,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    deleted_at: iso(row.deleted_at),
    created_by_id: row.created_by_id,
    updated_by_id: row.updated_by_id,
    deleted_by_id: row.deleted_by_id,
  };
}

/** Every spelling a client of either API may read an id under: generic, kind-named and family-named. */
function named(kind: Kind, suffix: string, value: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const prefix of [kind.name, ...kind.aliases]) out[`${prefix}_${suffix}`] = value;
  return out;
}

export type ArtifactRecord = ReturnType<typeof artifactRecord>;

export function artifactRecord(_kind: Kind, row: ArtifactRow) {
  return lifecycle(row);
}

export function variantRecord(kind: Kind, row: VariantRow) {
  return {
    ...lifecycle(row),
    artifact_id: row.artifact_id,
    artifact_slug: row.artifact_slug,
    ...named(kind, "id", row.artifact_id),
    ...named(kind, "slug", row.artifact_slug),
  };
}

/** A revision as clients read it; `data` is included unless the caller asks for metadata only (log). */
export function revisionRecord(kind: Kind, row: RevisionRow, data?: unknown) {
  return {
    ...lifecycle(row),
    version: String(row.version),
    author: row.author,
    date: iso(row.date),
    message: row.message,
    parent_id: row.parent_id,
    artifact_id: row.artifact_id,
    artifact_slug: row.artifact_slug,
    variant_id: row.variant_id,
    variant_slug: row.variant_slug,
    ...named(kind, "id", row.artifact_id),
    ...named(kind, "slug", row.artifact_slug),
    ...named(kind, "variant_id", row.variant_id),
    ...named(kind, "variant_slug", row.variant_slug),
    ...kind.recordFields?.(row),
    ...(data === undefined ? {} : { data }),
  };
}

/** A revision reference as stored in environments and traces: enough to find it and to read it. */
export const revisionRef = (row: RevisionRow) => ({ id: row.id, slug: row.slug, version: String(row.version) });
