import type { Scope } from "../accounts/scope.ts";
import { cachedRetrieve } from "../cache/cached-retrieve.ts";
import type { AppContext } from "../context.ts";
import { badRequest } from "../errors.ts";
import { applications, evaluators, workflows, type WorkflowData } from "../kinds/workflows.ts";
import type { Reference } from "../versioning/filters.ts";
import type { Kind } from "../versioning/kind.ts";
import { revisionRef } from "../versioning/records.ts";
import type { RetrieveRefs } from "../versioning/resolve.ts";

/** The invoke envelope's configuration sources (reference runtime). */
export interface InvokeSources {
  parameters?: Record<string, unknown> | null;
  revision?: { data?: WorkflowData | null } | null;
  references?: Record<string, Reference> | null;
  selector?: { key?: string | null } | null;
}

export interface Configuration {
  data: WorkflowData;
  /** What was resolved, for the trace: `{application: {id, slug}, application_revision: {id, slug, version}, environment…}`. */
  references: Record<string, unknown> | null;
}

const FAMILIES: Kind[] = [applications, evaluators, workflows];

/**
 * Where an invocation's configuration comes from: inline `data.parameters` win over
 * `data.revision.data`, which wins over what `references` resolve to (same rules as
 * `/applications/revisions/retrieve`).
 */
export async function resolveConfiguration(ctx: AppContext, scope: Scope, sources: InvokeSources): Promise<Configuration> {
  let data: WorkflowData = { ...(sources.revision?.data ?? {}) };
  let references: Record<string, unknown> | null = null;
  const refs = sources.references ?? {};
  if (Object.keys(refs).length > 0) {
    const kind = familyOf(refs);
    const n = kind.name;
    const query: RetrieveRefs = {
      artifact: refs[n], variant: refs[`${n}_variant`], revision: refs[`${n}_revision`],
      environment: refs.environment, environmentVariant: refs.environment_variant, environmentRevision: refs.environment_revision,
      key: sources.selector?.key ?? null,
    };
    const { revision, retrievalInfo } = await cachedRetrieve(ctx, scope, kind, query);
    const stored = (revision.data ?? {}) as WorkflowData;
    data = { ...stored, ...data, parameters: data.parameters ?? stored.parameters };
    references = {
      ...(retrievalInfo?.references ?? {}),
      [n]: { id: revision.artifact_id, slug: revision.artifact_slug },
      [`${n}_variant`]: { id: revision.variant_id, slug: revision.variant_slug },
      [`${n}_revision`]: revisionRef(revision),
    };
  }
  if (sources.parameters) data = { ...data, parameters: sources.parameters };
  return { data, references };
}

/** Which kind the references name; mixing application, evaluator and workflow references is a 400. */
function familyOf(refs: Record<string, unknown>): Kind {
  const named = FAMILIES.filter((k) => [k.name, `${k.name}_variant`, `${k.name}_revision`].some((key) => refs[key] != null));
  if (named.length > 1) throw badRequest(`References mix ${named.map((k) => k.name).join(" and ")}: name one family`);
  return named[0] ?? applications;
}
