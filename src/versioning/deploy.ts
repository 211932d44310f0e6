import type { Scope } from "../accounts/scope.ts";
import type { Queryable } from "../db/database.ts";
import { conflict } from "../errors.ts";
import { environments, type EnvironmentData } from "../kinds/environments.ts";
import { commitRevision } from "./commit.ts";
import type { Kind } from "./kind.ts";
import { revisionRef } from "./records.ts";
import { environmentRevision, retrieveRevision, type RetrieveRefs, type Retrieved } from "./resolve.ts";

/**
 * Points an environment's key at a revision by committing a new environment revision (other keys are
 * kept). The deployed revision itself is never touched.
 */
export async function deploy(
  tx: Queryable, scope: Scope, kind: Kind, refs: RetrieveRefs, message?: string | null,
  expectedLatestId?: string | null,
): Promise<Retrieved> {
  const { revision } = await retrieveRevision(tx, scope, kind, { artifact: refs.artifact, variant: refs.variant, revision: refs.revision });
  const current = await environmentRevision(tx, scope, { ...refs, environmentRevision: null });
  const [env] = await tx.query<{ flags: Record<string, unknown>; slug: string }>("SELECT flags, slug FROM artifacts WHERE id = $1", [current.artifact_id]);
  if (env.flags.is_guarded) throw conflict(`Environment ${env.slug} is guarded; unguard it before deploying`);
  const key = refs.key ?? `${revision.artifact_slug}.revision`;
  const entry = {
    [kind.name]: { id: revision.artifact_id, slug: revision.artifact_slug },
    [`${kind.name}_variant`]: { id: revision.variant_id, slug: revision.variant_slug },
    [`${kind.name}_revision`]: revisionRef(revision),
  };
  // The other keys are read from the latest revision under the variant's lock: concurrent deploys all stay.
  const committed = await commitRevision(tx, scope, environments, {
    variantId: current.variant_id,
    message: message ?? `Deploy ${revision.artifact_slug} v${revision.version} to ${env.slug} under ${key}`,
    update: (latest) => {
      const references = (latest?.data as EnvironmentData | null)?.references ?? {};
      return { references: { ...references, [key]: entry } };
    },
    expectedLatestId,
  });
  return {
    revision,
    retrievalInfo: {
      references: {
        environment: { id: committed.artifact_id, slug: committed.artifact_slug },
        environment_variant: { id: committed.variant_id, slug: committed.variant_slug },
        environment_revision: revisionRef(committed),
        ...entry,
      },
      selector: { key },
    },
  };
}
