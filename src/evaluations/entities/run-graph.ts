import type { Scope } from "../../accounts/scope.ts";
import type { Queryable } from "../../db/database.ts";
import { json } from "../../db/database.ts";
import { deleteRows, insertRows, type Row } from "./entity-table.ts";
import { beforeDirectWrite } from "../execution/run-chunks.ts";
import type { RunStep } from "../execution/run-steps.ts";
import { queues } from "./tables.ts";

/*
 * What a run's steps make of it, brought in line after every create and edit of a run, as the reference does:
 * the shape flags its steps imply, the cells of a step it no longer has, and its default queue (a run with a human
 * step has one, and only then is it a queue).
 */

type Flags = Record<string, unknown>;

/** The `has_*` flags a run's steps imply. */
export function shapeFlags(steps: RunStep[]): Flags {
  const inputs = steps.filter((s) => s.type === "input");
  const annotations = steps.filter((s) => s.type === "annotation");
  const direct = (keys: string[]) =>
    inputs.some((s) => Object.keys(s.references ?? {}).length === 0 && keys.includes(s.key.toLowerCase()));
  return {
    has_queries: inputs.some((s) => "query_revision" in (s.references ?? {})),
    has_testsets: inputs.some((s) => "testset_revision" in (s.references ?? {})),
    has_traces: direct(["traces", "query-direct"]),
    has_testcases: direct(["testcases", "testset-direct"]),
    has_evaluators: annotations.length > 0,
    has_custom: annotations.some((s) => s.origin === "custom"),
    has_human: annotations.some((s) => s.origin === "human"),
    has_auto: annotations.some((s) => s.origin === "auto"),
  };
}

/** The keys of a run's steps (before an edit, to see which it removes). */
export const runStepKeys = (run: Row): Set<string> =>
  new Set(((run.data as { steps?: RunStep[] } | null)?.steps ?? []).map((s) => s.key));

/**
 * Brings a run just created or edited in line with its steps: prunes the cells of the steps it had before
 * (`before`) and no longer has, with the scenarios left without any cell; keeps a default queue exactly while it has
 * a human step; and stores its derived flags (`has_*`, `is_queue`, which a client cannot set). Returns the run.
 */
export async function reconcileRun(tx: Queryable, scope: Scope, run: Row, before: Set<string>): Promise<Row> {
  const runId = run.id as string;
  const steps = (run.data as { steps?: RunStep[] } | null)?.steps ?? [];
  const now = runStepKeys(run);
  const removed = [...before].filter((key) => !now.has(key));
  if (removed.length) await pruneSteps(tx, scope, runId, removed);

  // A run without steps keeps the shape flags it has, as the reference keeps them.
  const flags: Flags = { ...(run.flags as Flags | null), ...(steps.length ? shapeFlags(steps) : {}) };
  const human = flags.has_human === true;
  const [current] = await tx.query<{ id: string }>(
    "SELECT id FROM evaluation_queues WHERE project_id = $1 AND run_id = $2 AND flags @> '{\"is_default\": true}'",
    [scope.projectId, runId],
  );
  if (human && !current) {
    await insertRows(tx, scope, queues, [{
      run_id: runId, name: run.name, description: run.description, status: "running",
      flags: { is_default: true, is_sequential: false }, data: {},
    }]);
  } else if (!human && current) {
    await deleteRows(tx, scope, queues, [current.id]);
  }
  flags.is_queue = human;
  if (JSON.stringify(flags) === JSON.stringify(run.flags)) return run;
  await tx.query("UPDATE evaluation_runs SET flags = $3::jsonb WHERE project_id = $1 AND id = $2", [
    scope.projectId, runId, json(flags),
  ]);
  return { ...run, flags };
}

/** Deletes a run's own results of `stepKeys`, and the scenarios those leave without any result. */
async function pruneSteps(tx: Queryable, scope: Scope, runId: string, stepKeys: string[]): Promise<void> {
  await beforeDirectWrite(tx, [runId]);
  // The scenario check reads the results as they were before the statement: the removed ones are left out by key.
  await tx.query(
    `WITH removed AS (
       DELETE FROM evaluation_results WHERE project_id = $1 AND run_id = $2 AND step_key = ANY($3::text[])
       RETURNING scenario_id
     )
     DELETE FROM evaluation_scenarios s
     WHERE s.project_id = $1 AND s.run_id = $2 AND s.id IN (SELECT scenario_id FROM removed)
       AND NOT EXISTS (
         SELECT 1 FROM evaluation_results r
         WHERE r.run_id = $2 AND r.scenario_id = s.id AND NOT r.step_key = ANY($3::text[])
       )`,
    [scope.projectId, runId, stepKeys],
  );
}
