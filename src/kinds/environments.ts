import type { Kind } from "../versioning/kind.ts";
import type { Reference } from "../versioning/filters.ts";

/** Under each key, references by entity name: `{application: {id}, application_variant: {id}, application_revision: {id, slug, version}}`. */
export type EnvironmentReferences = Record<string, Record<string, Reference>>;

export interface EnvironmentData {
  references?: EnvironmentReferences | null;
}

export interface EnvironmentDelta {
  set?: EnvironmentReferences | null;
  remove?: string[] | null;
}

/**
 * An environment is a named pointer: each revision holds a map from keys (default
 * `{application_slug}.revision`) to revision references. Deploying commits a new environment
 * revision; the revisions it points at never change.
 */
export const environments: Kind = {
  name: "environment",
  plural: "environments",
  family: "environment",
  aliases: [],
  flags: {},
  prepare: ({ data }) => ({ data: { references: (data as EnvironmentData | null)?.references ?? {} } }),
  applyDelta(base, delta) {
    const { set, remove } = delta as EnvironmentDelta;
    const references = { ...((base?.data as EnvironmentData | null)?.references ?? {}), ...set };
    for (const key of remove ?? []) delete references[key];
    return { references };
  },
};

export const DEFAULT_ENVIRONMENTS = ["development", "staging", "production"];
