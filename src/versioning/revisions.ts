import type { Scope } from "../accounts/scope.ts";
import type { Queryable } from "../db/database.ts";
import { notFound } from "../errors.ts";
import { matchMetadata, matchReferences, ofKind, type MetadataFilter, type Reference } from "./filters.ts";
import type { Kind } from "./kind.ts";
import { REVISION_COLUMNS, REVISION_FROM, type RevisionRow } from "./rows.ts";
import { Conditions } from "./sql.ts";
import { applyWindow, page, type Windowing } from "./windowing.ts";

/** One revision by id or slug, archived or not: revision ids resolve forever. */
export async function findRevision(db: Queryable, scope: Scope, kind: Kind, ref: Reference): Promise<RevisionRow> {
  const where = ofKind(new Conditions(), "r", scope.projectId, kind);
  if (ref.id) where.add("r.id = ?::uuid", ref.id);
  if (ref.slug) where.add("r.slug = ?", ref.slug);
  const [row] = await db.query<RevisionRow>(`SELECT ${REVISION_COLUMNS} FROM ${REVISION_FROM} WHERE ${where}`, where.params);
  if (!row || (!ref.id && !ref.slug)) throw notFound(`${kind.name} revision ${ref.id ?? ref.slug ?? "(no id or slug)"} not found`);
  return row;
}

export async function findRevisionByVersion(db: Queryable, scope: Scope, kind: Kind, variantId: string, version: number): Promise<RevisionRow> {
  const [row] = await db.query<RevisionRow>(
    `SELECT ${REVISION_COLUMNS} FROM ${REVISION_FROM} WHERE r.variant_id = $1 AND r.version = $2 AND r.project_id = $3`,
    [variantId, version, scope.projectId],
  );
  if (!row) throw notFound(`${kind.name} revision version ${version} not found in variant ${variantId}`);
  return row;
}

/** The newest active revision of a variant, or null when nothing has been committed yet. */
export async function latestRevision(db: Queryable, scope: Scope, variantId: string): Promise<RevisionRow | null> {
  const [row] = await db.query<RevisionRow>(
    `SELECT ${REVISION_COLUMNS} FROM ${REVISION_FROM}
     WHERE r.variant_id = $1 AND r.project_id = $2 AND r.deleted_at IS NULL ORDER BY r.version DESC LIMIT 1`,
    [variantId, scope.projectId],
  );
  return row ?? null;
}

export interface RevisionQuery {
  filter?: (MetadataFilter & { author?: string | null; authors?: string[] | null; message?: string | null }) | null;
  artifactRefs?: Reference[] | null;
  variantRefs?: Reference[] | null;
  refs?: Reference[] | null;
  includeArchived?: boolean | null;
  windowing?: Windowing | null;
}

export async function queryRevisions(db: Queryable, scope: Scope, kind: Kind, q: RevisionQuery) {
  const where = ofKind(new Conditions(), "r", scope.projectId, kind);
  matchMetadata(where, "r", q.filter);
  if (q.filter?.author) where.add("r.author = ?::uuid", q.filter.author);
  if (q.filter?.authors?.length) where.add("r.author = ANY(?::uuid[])", q.filter.authors);
  if (q.filter?.message) where.add("r.message ILIKE ?", `%${q.filter.message}%`);
  matchReferences(where, "a", q.artifactRefs);
  matchReferences(where, "v", q.variantRefs);
  matchReferences(where, "r", q.refs);
  if (!q.includeArchived) where.add("r.deleted_at IS NULL AND v.deleted_at IS NULL AND a.deleted_at IS NULL");
  const w = applyWindow(where, "r.id", q.windowing, "r.created_at");
  const rows = await db.query<RevisionRow>(`SELECT ${REVISION_COLUMNS} FROM ${REVISION_FROM} WHERE ${where} ${w.tail}`, where.params);
  return page(rows, w.limit, q.windowing);
}

/** A variant's history, newest first, ending at `upTo` (a version) when given, at most `depth` entries. */
export async function logRevisions(db: Queryable, scope: Scope, variantId: string, upTo: number | null, depth: number | null) {
  return db.query<RevisionRow>(
    `SELECT ${REVISION_COLUMNS} FROM ${REVISION_FROM}
     WHERE r.variant_id = $1 AND r.project_id = $2 AND ($3::int IS NULL OR r.version <= $3)
     ORDER BY r.version DESC LIMIT $4`,
    [variantId, scope.projectId, upTo, depth ?? 1000],
  );
}
