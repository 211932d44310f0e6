import type { Scope } from "../accounts/scope.ts";
import type { Queryable } from "../db/database.ts";
import { commitRevision } from "./commit.ts";
import type { Reference } from "./filters.ts";
import type { Kind } from "./kind.ts";
import { retrieveRevision } from "./resolve.ts";
import type { VariantRow } from "./rows.ts";
import { createVariant, findVariant, type VariantCreate } from "./variants.ts";

/**
 * A new variant (branch) of the same artifact whose first revision carries the data of an existing
 * revision: the one named, else the source variant's latest. The fork records it as its parent.
 */
export async function forkVariant(
  tx: Queryable, scope: Scope, kind: Kind,
  source: { variant?: Reference | null; revision?: Reference | null }, input: VariantCreate & { message?: string | null },
): Promise<VariantRow> {
  const { revision } = await retrieveRevision(tx, scope, kind, { variant: source.variant, revision: source.revision });
  const from = await findVariant(tx, scope, kind, { id: revision.variant_id });
  const variant = await createVariant(tx, scope, kind, { id: from.artifact_id }, {
    ...input,
    name: input.name ?? from.name,
    description: input.description ?? from.description,
  });
  await copyRevision(tx, scope, kind, revision.id, variant.id, input.message ?? `Forked from ${from.slug} v${revision.version}`, revision.id);
  return variant;
}

/** Commits the stored data of revision `fromId` onto variant `variantId` (parent: `parentId`, else the variant's latest). */
export async function copyRevision(tx: Queryable, scope: Scope, kind: Kind, fromId: string, variantId: string, message: string, parentId: string | null = null) {
  const [source] = await tx.query<{ data: unknown; flags: Record<string, unknown> }>("SELECT data, flags FROM revisions WHERE id = $1", [fromId]);
  // Stored data is already prepared; committing it again through a kind-neutral copy keeps it as is.
  return commitRevision(tx, scope, { ...kind, prepare: undefined }, { variantId, baseRevisionId: parentId, data: source.data, flags: source.flags, message });
}
