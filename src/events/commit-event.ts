import type { Scope } from "../accounts/scope.ts";
import type { Queryable } from "../db/database.ts";
import type { RevisionRow } from "../versioning/rows.ts";
import type { EventType } from "./event.ts";
import { recordEvent } from "./record-event.ts";

type References = Record<string, unknown>;

/** `{created, updated, deleted}` between two environment reference maps, as the reference reports a deploy. */
export function referencesDiff(before: References, after: References) {
  const created: References = {};
  const updated: References = {};
  const deleted: References = {};
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  for (const [key, value] of Object.entries(after)) {
    if (!(key in before)) created[key] = { new: value };
    else if (!same(before[key], value)) updated[key] = { old: before[key], new: value };
  }
  for (const [key, value] of Object.entries(before)) if (!(key in after)) deleted[key] = { old: value };
  return { created, updated, deleted };
}

const referencesOf = (row: RevisionRow | null): References =>
  ((row?.data as { references?: References } | null)?.references) ?? {};

/**
 * Records `<family>s.revisions.committed` for a revision just committed, in the commit's transaction: applications
 * and evaluators are workflows, as in the reference. An environment's event also carries its new `state` and the
 * `diff` of its references against `previous` (the revision it descends from).
 */
export async function recordCommitEvent(
  tx: Queryable, scope: Scope, family: string, revision: RevisionRow, previous: RevisionRow | null,
): Promise<void> {
  const attributes: Record<string, unknown> = {
    user_id: scope.userId,
    references: {
      [family]: { id: revision.artifact_id, slug: revision.artifact_slug },
      [`${family}_variant`]: { id: revision.variant_id, slug: revision.variant_slug },
      [`${family}_revision`]: { id: revision.id, slug: revision.slug, version: String(revision.version) },
    },
  };
  if (revision.message) attributes.message = revision.message;
  if (family === "environment") {
    attributes.state = revision.data ?? {};
    attributes.diff = referencesDiff(referencesOf(previous), referencesOf(revision));
  }
  await recordEvent(tx, scope.projectId, `${family}s.revisions.committed` as EventType, attributes);
}
