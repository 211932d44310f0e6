import type { Scope } from "../accounts/scope.ts";
import type { Config } from "../config.ts";
import type { Queryable } from "../db/database.ts";
import { json } from "../db/database.ts";
import { conflictOnDuplicate } from "../db/unique-violation.ts";
import { badRequest, conflict, notFound, unprocessable } from "../errors.ts";
import { recordCommitEvent } from "../events/commit-event.ts";
import { uuidv7 } from "../ids/uuid-v7.ts";
import { slugTaken } from "./artifacts.ts";
import type { Kind } from "./kind.ts";
import { withKindFlags } from "./lifecycle.ts";
import { REVISION_COLUMNS, REVISION_FROM, type RevisionRow, type VariantRow } from "./rows.ts";
import { shortHash, slugFor } from "./slugs.ts";

export interface CommitRequest {
  variantId: string;
  artifactId?: string | null;
  baseRevisionId?: string | null;
  slug?: string | null;
  name?: string | null;
  description?: string | null;
  message?: string | null;
  flags?: Record<string, unknown> | null;
  tags?: Record<string, unknown> | null;
  meta?: Record<string, unknown> | null;
  data?: unknown;
  delta?: unknown;
  /** The new data from the variant's latest revision, worked out under the variant's lock (a deploy adds its key). */
  update?: (latest: RevisionRow | null) => unknown;
  /** The revision the client expects to be the variant's latest: another one there is a 409 naming both. */
  expectedLatestId?: string | null;
  /** Handed to the kind's `prepare` (see `CommitInput.config`). */
  config?: Config;
}

/**
 * Appends an immutable revision to a variant. The variant row is locked for the transaction, so
 * concurrent commits on one variant get versions 0, 1, 2… (the number of revisions before it) with no
 * gap and no duplicate. The commit's event (src/events/) is recorded in the same transaction.
 */
export async function commitRevision(tx: Queryable, scope: Scope, kind: Kind, req: CommitRequest): Promise<RevisionRow> {
  if (req.data !== undefined && req.data !== null && req.delta !== undefined && req.delta !== null) {
    throw badRequest("Send either data or delta, not both");
  }
  const [variant] = await tx.query<VariantRow & { artifact_deleted_at: Date | null; artifact_flags: Record<string, unknown> }>(
    `SELECT v.*, a.slug AS artifact_slug, a.deleted_at AS artifact_deleted_at, a.flags AS artifact_flags
     FROM variants v JOIN artifacts a ON a.id = v.artifact_id
     WHERE v.id = $1 AND v.project_id = $2 AND v.kind = $3 AND v.flags @> $4::jsonb FOR UPDATE OF v`,
    [req.variantId, scope.projectId, kind.family, json(kind.flags)],
  );
  if (!variant) throw notFound(`${kind.name} variant ${req.variantId} not found`);
  if (req.artifactId && req.artifactId !== variant.artifact_id) {
    throw badRequest(`${kind.name} variant ${variant.id} does not belong to ${kind.name} ${req.artifactId}`);
  }
  if (variant.artifact_deleted_at || variant.deleted_at) throw conflict(`${kind.name} variant ${variant.id} is archived; unarchive it before committing`);
  if (variant.artifact_flags.is_guarded) throw conflict(`${kind.name} ${variant.artifact_slug} is guarded; unguard it before committing`);

  const [latest] = await tx.query<{ id: string; version: number }>(
    "SELECT id, version FROM revisions WHERE variant_id = $1 ORDER BY version DESC LIMIT 1",
    [variant.id],
  );
  if (req.expectedLatestId && req.expectedLatestId !== latest?.id) {
    const actual = latest ? `${latest.id} (version ${latest.version})` : "none";
    throw conflict(`${kind.name} variant ${variant.id} has moved on: the commit expected revision `
      + `${req.expectedLatestId} to be its latest, but the latest is ${actual}`);
  }
  const parent = await parentRevision(tx, scope, kind, variant, req.baseRevisionId);

  const input = {
    tx, scope, artifactId: variant.artifact_id, variantId: variant.id, parent, data: req.data, config: req.config,
  };
  if (req.update) input.data = req.update(parent);
  if (req.delta !== undefined && req.delta !== null) {
    if (!kind.applyDelta) throw unprocessable([{ loc: ["body", `${kind.name}_revision`, "delta"], msg: `${kind.plural} do not take deltas`, type: "value_error" }]);
    input.data = await kind.applyDelta(parent, req.delta, input);
  }
  const prepared = kind.prepare ? await kind.prepare(input) : { data: input.data ?? null };

  const slug = req.slug ? slugFor(req.slug, null, [`${kind.name}_revision`, "slug"]) : shortHash();
  const [row] = await conflictOnDuplicate(tx.query<{ id: string }>(
    `INSERT INTO revisions (id, project_id, kind, artifact_id, variant_id, version, parent_id, slug, name, description,
       message, author, flags, tags, meta, data, created_by_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $12) RETURNING id`,
    [
      uuidv7(), scope.projectId, kind.family, variant.artifact_id, variant.id, (latest?.version ?? -1) + 1, parent?.id ?? null,
      slug, req.name ?? null, req.description ?? null, req.message ?? null, scope.userId,
      json(withKindFlags(kind, { ...req.flags, ...prepared.flags })), json(req.tags), json(req.meta), json(prepared.data),
    ],
  ), slugTaken(kind, "revision", slug), "revisions_project_id_kind_slug_key");
  const [created] = await tx.query<RevisionRow>(`SELECT ${REVISION_COLUMNS} FROM ${REVISION_FROM} WHERE r.id = $1`, [row.id]);
  await recordCommitEvent(tx, scope, kind.family, created, parent);
  return created;
}

/** The base a commit names (it must be of the same artifact), else the variant's latest revision. */
async function parentRevision(tx: Queryable, scope: Scope, kind: Kind, variant: VariantRow, baseId: string | null | undefined) {
  const [row] = await tx.query<RevisionRow>(
    `SELECT ${REVISION_COLUMNS} FROM ${REVISION_FROM}
     WHERE r.project_id = $1 AND ${baseId ? "r.id = $2 AND r.artifact_id = $3" : "r.variant_id = $2 AND $3::uuid IS NOT NULL"}
     ORDER BY r.version DESC LIMIT 1`,
    [scope.projectId, baseId ?? variant.id, variant.artifact_id],
  );
  if (baseId && !row) throw notFound(`Base ${kind.name} revision ${baseId} not found`);
  return row ?? null;
}
