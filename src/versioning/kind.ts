import type { Scope } from "../accounts/scope.ts";
import type { Config } from "../config.ts";
import type { Queryable } from "../db/database.ts";
import type { RevisionRow } from "./rows.ts";

/**
 * A resource kind described for the one versioning engine. Kinds differ only in names, the flags
 * that tell them apart inside a storage family, and what their revision `data` holds.
 */
export interface Kind {
  /** Wire name, singular: `application`. */
  name: string;
  /** Wire name, plural and path segment: `applications`. */
  plural: string;
  /** Storage family: applications, evaluators and workflows are all workflows. */
  family: "workflow" | "environment" | "testset" | "query";
  /** Field prefixes accepted in requests, besides the generic ones (`application_id`, `workflow_id`…). */
  aliases: string[];
  /** Flags every artifact of this kind carries; queries of the kind filter on them. */
  flags: Record<string, boolean>;
  /** Turns the committed payload into what is stored (validate, normalise, derive). */
  prepare?(commit: CommitInput): Promise<PreparedData> | PreparedData;
  /** Turns stored data into what clients read. */
  present?(revision: RevisionRow, read: ReadContext): Promise<unknown> | unknown;
  /** Fields a revision's record carries beside its data, read from the stored data alone (no I/O). */
  recordFields?(revision: RevisionRow): Record<string, unknown>;
  /** Applies a `delta` to the base revision's stored data (kinds without deltas reject them). */
  applyDelta?(base: RevisionRow | null, delta: unknown, commit: CommitInput): Promise<unknown> | unknown;
  /** Compares two revisions' data; kinds without it get a JSON Patch of their stored data. */
  diff?(base: RevisionRow, target: RevisionRow, read: ReadContext): Promise<unknown> | unknown;
}

export interface CommitInput {
  tx: Queryable;
  scope: Scope;
  artifactId: string;
  variantId: string;
  /** The revision this commit descends from (given base, or the variant's latest). */
  parent: RevisionRow | null;
  data: unknown;
  /** The server's configuration, for checks that depend on it (hook addresses); absent: the strictest. */
  config?: Config;
}

export interface PreparedData {
  data: unknown;
  /** Revision flags derived from the data (e.g. `is_chat` for chat workflows). */
  flags?: Record<string, boolean>;
}

export interface ReadContext {
  db: Queryable;
  scope: Scope;
  config: Config;
  /** Kind-specific read options (e.g. testsets' include_testcases). */
  options: Record<string, unknown>;
}
