/*
 * The evaluator an annotation scores for, resolved as the reference resolves it: by the `evaluator`,
 * `evaluator_variant` or `evaluator_revision` reference (id, slug or version) in the caller's project. One that
 * does not exist yet is created as a feedback evaluator (`agenta:custom:feedback:v0`) under the slug given, its
 * outputs schema inferred from the annotation's outputs.
 */

import { randomUUID } from "node:crypto";
import type { Scope } from "../../accounts/scope.ts";
import type { Config } from "../../config.ts";
import type { Database } from "../../db/database.ts";
import { HttpError } from "../../errors.ts";
import { evaluators } from "../../kinds/workflows.ts";
import type { Reference } from "../../versioning/filters.ts";
import { retrieveRevision, revisionReferences } from "../../versioning/resolve.ts";
import type { RevisionRow } from "../../versioning/rows.ts";
import { createSimple } from "../../versioning/simple.ts";
import { inferSchema } from "./output-schema.ts";

/** The URI of the evaluators annotations create for themselves. */
export const FEEDBACK_URI = "agenta:custom:feedback:v0";

type Refs = Record<string, Reference | Record<string, unknown> | undefined>;

/** The evaluator revision the references name, or null when none of them names one this project holds. */
async function findRevision(db: Database, scope: Scope, refs: Refs): Promise<RevisionRow | null> {
  try {
    const { revision } = await retrieveRevision(db, scope, evaluators, {
      artifact: refs.evaluator as Reference | undefined,
      variant: refs.evaluator_variant as Reference | undefined,
      revision: refs.evaluator_revision as Reference | undefined,
    });
    return revision;
  } catch (error) {
    if (error instanceof HttpError && error.statusCode === 404) return null;
    throw error;
  }
}

/**
 * The references with the evaluator's three resolved (`{evaluator, evaluator_variant, evaluator_revision}` by id
 * and slug, the revision with its version), and the evaluator's outputs schema. An evaluator not found is created
 * first (a slug taken meanwhile by another request is read back instead).
 */
export async function resolveFeedbackEvaluator(
  db: Database, scope: Scope, config: Config, refs: Refs, outputs: unknown,
): Promise<{ references: Refs; outputsSchema: unknown } | null> {
  let revision = await findRevision(db, scope, refs);
  if (!revision) {
    const slug = (refs.evaluator as Reference | undefined)?.slug ?? randomUUID().replaceAll("-", "").slice(-12);
    const input = {
      slug, name: slug, flags: { is_evaluator: true, is_feedback: true },
      data: { uri: FEEDBACK_URI, schemas: { outputs: inferSchema(outputs) } },
    };
    try {
      await db.transaction((tx) => createSimple(tx, scope, evaluators, input, config));
    } catch (error) {
      if (!(error instanceof HttpError && error.statusCode === 409)) throw error;
    }
    revision = await findRevision(db, scope, { evaluator: { slug } });
  }
  if (!revision) return null;
  const resolved = revisionReferences(evaluators, revision);
  const data = revision.data as { schemas?: { outputs?: unknown } | null } | null;
  return { references: { ...refs, ...resolved }, outputsSchema: data?.schemas?.outputs ?? null };
}
