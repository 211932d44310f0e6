import type { Scope } from "../accounts/scope.ts";
import type { Queryable } from "../db/database.ts";
import { json } from "../db/database.ts";
import { conflictOnDuplicate } from "../db/unique-violation.ts";
import { notFound } from "../errors.ts";
import { uuidv7 } from "../ids/uuid-v7.ts";
import { matchMetadata, matchReferences, ofKind, type MetadataFilter, type Reference } from "./filters.ts";
import type { Kind } from "./kind.ts";
import { withKindFlags } from "./lifecycle.ts";
import type { ArtifactRow } from "./rows.ts";
import { slugFor } from "./slugs.ts";
import { Conditions } from "./sql.ts";
import { applyWindow, page, type Windowing } from "./windowing.ts";

export interface ArtifactCreate {
  slug?: string | null;
  name?: string | null;
  description?: string | null;
  flags?: Record<string, unknown> | null;
  tags?: Record<string, unknown> | null;
  meta?: Record<string, unknown> | null;
}

/**
 * A new artifact (with `id` when its content was written before it, as an upload's testcases are); 409 when its slug
 * is taken within the kind's family (applications and evaluators share slugs).
 */
export async function createArtifact(
  tx: Queryable, scope: Scope, kind: Kind, input: ArtifactCreate, id: string = uuidv7(),
): Promise<ArtifactRow> {
  const slug = slugFor(input.slug, input.name, [kind.name, "slug"]);
  const [row] = await conflictOnDuplicate(tx.query<ArtifactRow>(
    `INSERT INTO artifacts (id, project_id, kind, slug, name, description, flags, tags, meta, created_by_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING *`,
    [
      id, scope.projectId, kind.family, slug,
      input.name ?? null, input.description ?? null, json(withKindFlags(kind, input.flags)),
      json(input.tags), json(input.meta), scope.userId,
    ],
  ), slugTaken(kind, "", slug));
  return row;
}

/** One artifact by id or slug, archived or not; 404 when it is not this project's or not of this kind. */
export async function findArtifact(db: Queryable, scope: Scope, kind: Kind, ref: Reference): Promise<ArtifactRow> {
  const where = ofKind(new Conditions(), "a", scope.projectId, kind);
  if (ref.id) where.add("a.id = ?::uuid", ref.id);
  if (ref.slug) where.add("a.slug = ?", ref.slug);
  const [row] = await db.query<ArtifactRow>(`SELECT a.* FROM artifacts a WHERE ${where}`, where.params);
  if (!row || (!ref.id && !ref.slug)) throw notFound(`${kind.name} ${ref.id ?? ref.slug ?? "(no id or slug)"} not found`);
  return row;
}

export interface ArtifactQuery {
  filter?: MetadataFilter | null;
  refs?: Reference[] | null;
  includeArchived?: boolean | null;
  windowing?: Windowing | null;
}

export async function queryArtifacts(db: Queryable, scope: Scope, kind: Kind, q: ArtifactQuery) {
  const where = ofKind(new Conditions(), "a", scope.projectId, kind);
  matchMetadata(where, "a", q.filter);
  matchReferences(where, "a", q.refs);
  if (!q.includeArchived) where.add("a.deleted_at IS NULL");
  const w = applyWindow(where, "a.id", q.windowing, "a.created_at");
  const rows = await db.query<ArtifactRow>(`SELECT a.* FROM artifacts a WHERE ${where} ${w.tail}`, where.params);
  return page(rows, w.limit, q.windowing);
}

/** The 409 detail for a slug already taken by a `what` ("", "variant", "revision") of the kind's family. */
export function slugTaken(kind: Kind, what: string, slug: string): string {
  const thing = [kind.family === kind.name ? kind.name : "application or evaluator", what].filter(Boolean).join(" ");
  return `${/^[aeiou]/.test(thing) ? "An" : "A"} ${thing} with slug ${JSON.stringify(slug)} already exists in this project`;
}
