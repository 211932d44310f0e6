import type { Scope } from "../accounts/scope.ts";
import type { Queryable } from "../db/database.ts";
import { json } from "../db/database.ts";
import { badRequest, conflict, notFound, unprocessable } from "../errors.ts";
import type { Kind } from "./kind.ts";

export type Level = "artifact" | "variant" | "revision";
const TABLE: Record<Level, string> = { artifact: "artifacts", variant: "variants", revision: "revisions" };

/** The same edits apply at every level: metadata only, never a revision's committed data. */
export interface MetadataEdit {
  id?: string | null;
  name?: string | null;
  description?: string | null;
  flags?: Record<string, unknown> | null;
  tags?: Record<string, unknown> | null;
  meta?: Record<string, unknown> | null;
}

/** Kind flags are part of what a kind is: a client cannot edit them away. */
export function withKindFlags(kind: Kind, flags: Record<string, unknown> | null | undefined): Record<string, unknown> {
  return { ...(flags ?? {}), ...kind.flags };
}

const WRAPPER: Record<Level, string> = { artifact: "", variant: "_variant", revision: "_revision" };

/**
 * Edits the metadata of a live entity: an archived one is a 404 (unarchive it first), a present name
 * must hold a non-whitespace character (422), a body id must match the path's (400).
 */
export async function editMetadata(db: Queryable, scope: Scope, kind: Kind, level: Level, id: string, edit: MetadataEdit): Promise<void> {
  if (edit.id && edit.id !== id) throw badRequest(`Body id ${edit.id} does not match the id in the path (${id})`);
  if (typeof edit.name === "string" && edit.name.trim() === "") {
    throw unprocessable(`${kind.name}${WRAPPER[level]}.name must contain a non-whitespace character.`);
  }
  const rows = await db.query(
    `UPDATE ${TABLE[level]} SET
       name = CASE WHEN $4::boolean THEN $5 ELSE name END,
       description = CASE WHEN $6::boolean THEN $7 ELSE description END,
       flags = COALESCE($8::jsonb, flags),
       tags = CASE WHEN $9::boolean THEN $10::jsonb ELSE tags END,
       meta = CASE WHEN $11::boolean THEN $12::jsonb ELSE meta END,
       updated_at = now(), updated_by_id = $13
     WHERE id = $1 AND project_id = $2 AND kind = $3 AND flags @> $14::jsonb AND deleted_at IS NULL RETURNING id`,
    [
      id, scope.projectId, kind.family,
      edit.name !== undefined, edit.name ?? null,
      edit.description !== undefined, edit.description ?? null,
      edit.flags ? json(withKindFlags(kind, edit.flags)) : null,
      edit.tags !== undefined, json(edit.tags),
      edit.meta !== undefined, json(edit.meta),
      scope.userId, json(kind.flags),
    ],
  );
  if (rows.length === 0) throw notFound(`${kind.name} ${level} ${id} not found (or archived)`);
}

/** Archive sets deleted_at (hiding the entity from queries); unarchive clears it. Ids stay resolvable. */
export async function setArchived(db: Queryable, scope: Scope, kind: Kind, level: Level, id: string, archived: boolean): Promise<void> {
  const rows = await db.query(
    `UPDATE ${TABLE[level]} SET
       deleted_at = CASE WHEN $4::boolean THEN COALESCE(deleted_at, now()) ELSE NULL END,
       deleted_by_id = CASE WHEN $4::boolean THEN $5::uuid ELSE NULL END,
       updated_at = now()
     WHERE id = $1 AND project_id = $2 AND kind = $3 AND flags @> $6::jsonb RETURNING id`,
    [id, scope.projectId, kind.family, archived, scope.userId, json(kind.flags)],
  );
  if (rows.length === 0) throw notFound(`${kind.name} ${level} ${id} not found`);
}

/** Guards or unguards an artifact (a guarded one refuses commits and deploys): one atomic write of that flag alone. */
export async function setGuarded(db: Queryable, scope: Scope, kind: Kind, id: string, guarded: boolean): Promise<void> {
  const [row] = await db.query<{ archived: boolean; slug: string }>(
    `UPDATE artifacts SET flags = flags || jsonb_build_object('is_guarded', $4::boolean),
       updated_at = now(), updated_by_id = $5
     WHERE id = $1 AND project_id = $2 AND kind = $3 AND flags @> $6::jsonb
     RETURNING deleted_at IS NOT NULL AS archived, slug`,
    [id, scope.projectId, kind.family, guarded, scope.userId, json(kind.flags)],
  );
  if (!row) throw notFound(`${kind.name} ${id} not found`);
  if (row.archived) throw conflict(`${kind.name} ${row.slug} is archived`);
}

