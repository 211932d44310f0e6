import type { Scope } from "../accounts/scope.ts";
import type { Queryable } from "../db/database.ts";
import { badRequest, HttpError } from "../errors.ts";
import { commitRevision } from "./commit.ts";
import type { Reference } from "./filters.ts";
import type { Kind } from "./kind.ts";
import { retrieveRevision } from "./resolve.ts";
import { logRevisions } from "./revisions.ts";
import type { RevisionRow, VariantRow } from "./rows.ts";
import { createVariant, findVariant, type VariantCreate } from "./variants.ts";

/**
 * A new variant (branch) of the same artifact holding the source's lineage: every revision of the source
 * variant up to the pinned one (else its latest), copied oldest first with their data and metadata, so
 * the fork's versions match the source's. No extra commit. A source that names nothing is a 400.
 */
export async function forkVariant(
  tx: Queryable, scope: Scope, kind: Kind,
  source: { variant?: Reference | null; revision?: Reference | null }, input: VariantCreate & { message?: string | null },
): Promise<VariantRow> {
  const pinned = await retrieveRevision(tx, scope, kind, { variant: source.variant, revision: source.revision })
    .then((r) => r.revision)
    .catch((e: unknown) => {
      if (e instanceof HttpError && e.statusCode === 404) throw badRequest(`Cannot fork: ${String(e.detail)}`);
      throw e;
    });
  const from = await findVariant(tx, scope, kind, { id: pinned.variant_id });
  const variant = await createVariant(tx, scope, kind, { id: from.artifact_id }, {
    ...input,
    name: input.name ?? from.name,
    description: input.description ?? from.description,
  });
  const lineage = (await logRevisions(tx, scope, from.id, pinned.version, pinned.version + 1)).reverse();
  // Revision slugs are unique per project: a copy's slug is its source's, suffixed with the fork's id.
  const suffix = `_${variant.id.replace(/-/g, "")}`;
  for (const revision of lineage) {
    await copyRevision(tx, scope, kind, revision, variant.id, revision.message, {
      slug: `${revision.slug.slice(0, 128 - suffix.length)}${suffix}`,
      metadata: true,
    });
  }
  return variant;
}

/** Commits the stored data (and, when asked, the metadata) of `from` onto variant `variantId`, after its latest. */
export async function copyRevision(
  tx: Queryable, scope: Scope, kind: Kind, from: RevisionRow, variantId: string, message: string | null,
  opts: { slug?: string; metadata?: boolean } = {},
) {
  const metadata = opts.metadata ? { name: from.name, description: from.description, tags: from.tags, meta: from.meta } : {};
  // Stored data is already prepared; committing it again through a kind-neutral copy keeps it as is.
  return commitRevision(tx, scope, { ...kind, prepare: undefined }, {
    variantId, data: from.data, flags: from.flags, message, slug: opts.slug ?? null, ...metadata,
  });
}
