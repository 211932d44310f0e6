import type { Scope } from "../../accounts/scope.ts";
import type { Queryable } from "../../db/database.ts";
import { queries } from "../../kinds/queries.ts";
import { testsets } from "../../kinds/testsets.ts";
import { workflows } from "../../kinds/workflows.ts";
import type { Kind } from "../../versioning/kind.ts";
import { findRevision } from "../../versioning/revisions.ts";
import type { ComputedStep } from "./result-hash.ts";

/*
 * A simple evaluation names revisions; its run pins them as steps, as the reference builds them:
 * `testset-<revision slug>` or `query-<slug>` (input), `application-<slug>` (invocation), `evaluator-<slug>`
 * (annotation),
 * each with the artifact, variant and revision it pins.
 */

export type Origin = "custom" | "human" | "auto";
/** Revision ids, as a list or with an origin each (the reference's `Target`). */
export type Target = string[] | Record<string, Origin>;

export interface RunStep {
  key: string;
  type: "input" | "invocation" | "annotation";
  origin: Origin;
  references: Record<string, { id: string; slug: string; version?: string }>;
}

export interface SimpleSteps {
  query_steps?: Target | null;
  testset_steps?: Target | null;
  application_steps?: Target | null;
  evaluator_steps?: Target | null;
}

const FAMILIES = [
  { field: "query_steps", prefix: "query", type: "input", kind: queries, name: "query", origin: "custom" },
  { field: "testset_steps", prefix: "testset", type: "input", kind: testsets, name: "testset", origin: "custom" },
  { field: "application_steps", prefix: "application", type: "invocation", kind: workflows, name: "application", origin: "custom" },
  { field: "evaluator_steps", prefix: "evaluator", type: "annotation", kind: workflows, name: "evaluator", origin: "auto" },
] as const satisfies readonly { field: keyof SimpleSteps; prefix: string; type: RunStep["type"]; kind: Kind; name: string; origin: Origin }[];

const entries = (target: Target | null | undefined, origin: Origin): [string, Origin][] =>
  Array.isArray(target) ? target.map((id) => [id, origin]) : Object.entries(target ?? {});

/** The run's steps for the revisions a simple evaluation names (404 for a revision that is not the caller's). */
export async function buildSteps(db: Queryable, scope: Scope, steps: SimpleSteps): Promise<RunStep[]> {
  const out: RunStep[] = [];
  for (const family of FAMILIES) {
    for (const [id, origin] of entries(steps[family.field], family.origin)) {
      const r = await findRevision(db, scope, family.kind, { id });
      out.push({
        key: `${family.prefix}-${r.slug}`,
        type: family.type,
        origin,
        references: {
          [family.name]: { id: r.artifact_id, slug: r.artifact_slug },
          [`${family.name}_variant`]: { id: r.variant_id, slug: r.variant_slug },
          [`${family.name}_revision`]: { id: r.id, slug: r.slug, version: String(r.version) },
        },
      });
    }
  }
  return out;
}

/** The simple evaluation's step targets read back from a run's steps. */
export function simpleSteps(steps: RunStep[] | null | undefined): Required<SimpleSteps> {
  const out: Required<SimpleSteps> = {
    query_steps: null, testset_steps: null, application_steps: null, evaluator_steps: null,
  };
  for (const family of FAMILIES) {
    const picked = (steps ?? []).filter((s) => s.key.startsWith(`${family.prefix}-`) && s.references[`${family.name}_revision`]);
    if (picked.length) out[family.field] = Object.fromEntries(picked.map((s) => [s.references[`${family.name}_revision`].id, s.origin]));
  }
  return out;
}

export type PinnedStep = RunStep & ComputedStep;

/** What the server computes for each scenario: the application step (if any), then the automatic evaluators. */
export function computedSteps(steps: RunStep[]): { app: PinnedStep | null; graders: PinnedStep[] } {
  const pinned = (step: RunStep) => {
    const family = step.type === "invocation" ? "application" : "evaluator";
    return { ...step, revisionId: step.references[`${family}_revision`].id };
  };
  const app = steps.find((s) => s.type === "invocation");
  const graders = steps.filter((s) => s.type === "annotation" && s.origin !== "human");
  return { app: app ? pinned(app) : null, graders: graders.map(pinned) };
}
