import type { Scope } from "../accounts/scope.ts";
import type { Queryable } from "../db/database.ts";
import { json } from "../db/database.ts";
import { conflictOnDuplicate } from "../db/unique-violation.ts";
import { notFound } from "../errors.ts";
import { uuidv7 } from "../ids/uuid-v7.ts";
import { findArtifact, slugTaken } from "./artifacts.ts";
import { matchMetadata, matchReferences, ofKind, type MetadataFilter, type Reference } from "./filters.ts";
import type { Kind } from "./kind.ts";
import { withKindFlags } from "./lifecycle.ts";
import { VARIANT_COLUMNS, VARIANT_FROM, type VariantRow } from "./rows.ts";
import { slugFor } from "./slugs.ts";
import { Conditions } from "./sql.ts";
import { applyWindow, page, type Windowing } from "./windowing.ts";

export interface VariantCreate {
  slug?: string | null;
  name?: string | null;
  description?: string | null;
  flags?: Record<string, unknown> | null;
  tags?: Record<string, unknown> | null;
  meta?: Record<string, unknown> | null;
}

export async function createVariant(tx: Queryable, scope: Scope, kind: Kind, artifactRef: Reference, input: VariantCreate): Promise<VariantRow> {
  const artifact = await findArtifact(tx, scope, kind, artifactRef);
  const slug = slugFor(input.slug ?? slugFor(null, `${artifact.slug}.${input.name ?? "variant"}`, []), null, [`${kind.name}_variant`, "slug"]);
  const [row] = await conflictOnDuplicate(tx.query<VariantRow>(
    `INSERT INTO variants (id, project_id, kind, artifact_id, slug, name, description, flags, tags, meta, created_by_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *, $12::text AS artifact_slug`,
    [
      uuidv7(), scope.projectId, kind.family, artifact.id, slug,
      input.name ?? null, input.description ?? null, json(withKindFlags(kind, input.flags)),
      json(input.tags), json(input.meta), scope.userId, artifact.slug,
    ],
  ), slugTaken(kind, "variant", slug));
  return row;
}

/** One variant by id or slug (optionally within an artifact), archived or not. */
export async function findVariant(db: Queryable, scope: Scope, kind: Kind, ref: Reference, artifactId?: string): Promise<VariantRow> {
  const where = ofKind(new Conditions(), "v", scope.projectId, kind);
  if (ref.id) where.add("v.id = ?::uuid", ref.id);
  if (ref.slug) where.add("v.slug = ?", ref.slug);
  if (artifactId) where.add("v.artifact_id = ?::uuid", artifactId);
  const [row] = await db.query<VariantRow>(`SELECT ${VARIANT_COLUMNS} FROM ${VARIANT_FROM} WHERE ${where}`, where.params);
  if (!row || (!ref.id && !ref.slug)) throw notFound(`${kind.name} variant ${ref.id ?? ref.slug ?? "(no id or slug)"} not found`);
  return row;
}

/** The variant an artifact reference means: its first active variant. */
export async function defaultVariant(db: Queryable, scope: Scope, kind: Kind, artifactId: string): Promise<VariantRow> {
  const [row] = await db.query<VariantRow>(
    `SELECT ${VARIANT_COLUMNS} FROM ${VARIANT_FROM}
     WHERE v.artifact_id = $1 AND v.project_id = $2 ORDER BY (v.deleted_at IS NOT NULL), v.id LIMIT 1`,
    [artifactId, scope.projectId],
  );
  if (!row) throw notFound(`${kind.name} ${artifactId} has no variant`);
  return row;
}

export interface VariantQuery {
  filter?: MetadataFilter | null;
  artifactRefs?: Reference[] | null;
  refs?: Reference[] | null;
  includeArchived?: boolean | null;
  windowing?: Windowing | null;
}

export async function queryVariants(db: Queryable, scope: Scope, kind: Kind, q: VariantQuery) {
  const where = ofKind(new Conditions(), "v", scope.projectId, kind);
  matchMetadata(where, "v", q.filter);
  matchReferences(where, "a", q.artifactRefs);
  matchReferences(where, "v", q.refs);
  if (!q.includeArchived) where.add("v.deleted_at IS NULL AND a.deleted_at IS NULL");
  const w = applyWindow(where, "v.id", q.windowing, "v.created_at");
  const rows = await db.query<VariantRow>(`SELECT ${VARIANT_COLUMNS} FROM ${VARIANT_FROM} WHERE ${where} ${w.tail}`, where.params);
  return page(rows, w.limit, q.windowing);
}
