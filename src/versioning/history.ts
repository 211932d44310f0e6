import type { Scope } from "../accounts/scope.ts";
import type { Queryable } from "../db/database.ts";
import { copyRevision } from "./fork.ts";
import { diffJson } from "./json-patch.ts";
import type { Json } from "./json-path.ts";
import type { Kind, ReadContext } from "./kind.ts";
import { revisionRef } from "./records.ts";
import type { RevisionRow } from "./rows.ts";

const METADATA = ["name", "description", "message", "flags", "tags", "meta"] as const;

/**
 * What changed from `base` to `target`: the kind's own comparison of the data (a JSON Patch by
 * default) and the metadata fields whose values differ.
 */
export async function diffRevisions(read: ReadContext, kind: Kind, base: RevisionRow, target: RevisionRow) {
  const metadata: Record<string, { from: unknown; to: unknown }> = {};
  for (const field of METADATA) {
    if (JSON.stringify(base[field] ?? null) !== JSON.stringify(target[field] ?? null)) metadata[field] = { from: base[field] ?? null, to: target[field] ?? null };
  }
  return {
    base: { ...revisionRef(base), variant_id: base.variant_id },
    target: { ...revisionRef(target), variant_id: target.variant_id },
    data: kind.diff ? await kind.diff(base, target, read) : diffJson((base.data ?? null) as Json, (target.data ?? null) as Json),
    metadata,
  };
}

/** A new revision on the variant's line whose data equals `source`'s; history is never rewritten. */
export async function revertTo(tx: Queryable, scope: Scope, kind: Kind, source: RevisionRow, variantId: string, message?: string | null) {
  return copyRevision(tx, scope, kind, source, variantId, message ?? `Revert to v${source.version} (${source.id})`);
}
