import type { Scope } from "../../accounts/scope.ts";
import type { Queryable } from "../../db/database.ts";
import { testsets } from "../../kinds/testsets.ts";
import { idPages, type StoredIds } from "../../testsets/chunk-lists.ts";
import { loadTestcases } from "../../testsets/testcases.ts";
import { findRevision } from "../../versioning/revisions.ts";
import { deleteRows, fetchRows, insertRows, type Row } from "../entities/entity-table.ts";
import { createQueues, isDefaultShaped, type QueueData } from "./queues.ts";
import { assertOpenRuns } from "../entities/runs.ts";
import { buildSteps, type Origin, type RunStep, type Target } from "../execution/run-steps.ts";
import { queues, results, runs, scenarios } from "../entities/tables.ts";
import { queueRefused, queueSourceInvalid, testcasesNotFound, tracesNotFound } from "../errors.ts";
import { matchingTraces, queryRevisionData } from "../execution/trace-sources.ts";

/*
 * Simple queues, the reference's shortcut for human annotation: one call makes a run whose steps are a
 * source (testcases sent later, or pinned testset revisions) and human evaluators, and its queue. Each
 * testcase becomes a scenario; annotating is writing the human steps' results.
 */

/** The source step testcases sent to a `testcases` queue are recorded under. */
export const TESTCASES_STEP = "testcases";
/** The source step traces sent to a `traces` queue are recorded under. */
export const TRACES_STEP = "traces";
/** The direct source step of each kind that takes its scenarios one call at a time. */
const DIRECT_STEPS = { testcases: TESTCASES_STEP, traces: TRACES_STEP } as const;

export type SimpleQueueKind = "queries" | "testsets" | "traces" | "testcases";

export interface SimpleQueueInput {
  name?: string | null;
  description?: string | null;
  tags?: Record<string, unknown> | null;
  meta?: Record<string, unknown> | null;
  status?: string | null;
  data: {
    kind?: SimpleQueueKind | null;
    queries?: string[] | null;
    testsets?: string[] | null;
    evaluators?: Target | null;
    repeats?: number | null;
    assignments?: string[][] | null;
    step_keys?: string[] | null;
    settings?: { batch_size?: number | null; batch_offset?: number | null } | null;
  };
}

/** The queue's kind, checked against its sources as the reference checks them (422 naming the rule broken). */
function kindOf(data: SimpleQueueInput["data"]): SimpleQueueKind {
  const hasQueries = (data.queries?.length ?? 0) > 0;
  const hasTestsets = (data.testsets?.length ?? 0) > 0;
  const rules: [boolean, string][] = [
    [hasQueries && hasTestsets, "simple queue source must be either queries or testsets"],
    [!data.kind && !hasQueries && !hasTestsets, "simple queue requires kind, queries, or testsets"],
    [hasQueries && data.kind != null && data.kind !== "queries", "query-backed queues must use kind='queries'"],
    [hasTestsets && data.kind != null && data.kind !== "testsets", "testset-backed queues must use kind='testsets'"],
    [data.kind === "queries" && !hasQueries, "kind='queries' requires query sources"],
    [data.kind === "testsets" && !hasTestsets, "kind='testsets' requires testset sources"],
  ];
  const broken = rules.find(([broken]) => broken);
  if (broken) throw queueSourceInvalid(broken[1]);
  return data.kind ?? (hasQueries ? "queries" : "testsets");
}

/** Evaluators without an origin are human ones in a queue; a queue needs at least one human evaluator. */
function humanTargets(evaluators: Target | null | undefined): Record<string, Origin> | null {
  const targets: Record<string, Origin> = Array.isArray(evaluators)
    ? Object.fromEntries(evaluators.map((id) => [id, "human" as const]))
    : { ...(evaluators ?? {}) };
  if (Object.keys(targets).length === 0) return null;
  if (!Object.values(targets).includes("human")) {
    throw queueRefused("A simple queue needs at least one human evaluator", 422);
  }
  return targets;
}

/** Creates the run (source and evaluator steps, scenarios of its testset revisions or queries) and its queue. */
export async function createSimpleQueue(
  tx: Queryable, scope: Scope, input: SimpleQueueInput, maxTraces: number,
): Promise<Row | null> {
  const { data } = input;
  const kind = kindOf(data);
  const evaluators = humanTargets(data.evaluators);
  // As the reference answers: without evaluators there is nothing to annotate, so no queue (count 0).
  if (!evaluators) return null;
  const steps: RunStep[] = await buildSteps(tx, scope, {
    query_steps: data.queries ?? null, testset_steps: data.testsets ?? null, evaluator_steps: evaluators,
  });
  if (kind === "testcases" || kind === "traces") {
    steps.unshift({ key: DIRECT_STEPS[kind], type: "input", origin: "custom", references: {} });
  }
  const lanes = data.assignments?.length ?? 0;
  const repeats = Math.max(data.repeats ?? 1, lanes, 1);
  const annotations = steps.filter((s) => s.type === "annotation");
  const flags = {
    is_live: false, is_active: true, is_closed: false, is_queue: true, is_cached: false, is_split: false,
    has_queries: kind === "queries", has_testsets: kind === "testsets", has_traces: kind === "traces",
    has_testcases: kind === "testcases",
    has_evaluators: true, has_custom: annotations.some((s) => s.origin === "custom"), has_human: true,
    has_auto: annotations.some((s) => s.origin === "auto"),
  };
  const status = input.status ?? "running";
  const [run] = await insertRows(tx, scope, runs, [{
    name: input.name, description: input.description, tags: input.tags, meta: input.meta, flags, status,
    data: { steps, repeats, concurrency: null, mappings: [] },
  }]);
  const settings = data.settings ?? {};
  const queueData: QueueData = {
    user_ids: lanes ? data.assignments : null, scenario_ids: null, step_keys: data.step_keys ?? null,
    batch_size: settings.batch_size ?? null, batch_offset: settings.batch_offset ?? null,
  };
  const isSequential = settings.batch_size != null || settings.batch_offset != null;
  const [queue] = await createQueues(tx, scope, [{
    name: input.name, description: input.description, tags: input.tags, meta: input.meta, status, run_id: run.id,
    flags: { is_default: !isSequential && isDefaultShaped(queueData), is_sequential: isSequential }, data: queueData,
  }]);
  for (const step of steps.filter((s) => s.references.testset_revision)) {
    const revision = await findRevision(tx, scope, testsets, { id: step.references.testset_revision.id });
    for await (const ids of idPages(tx, scope.projectId, revision.data as StoredIds | null)) {
      await addScenarios(tx, scope, run.id as string, step.key, ids);
    }
  }
  // A query-backed queue annotates the traces its queries pick when it is made (at most `maxTraces` each).
  for (const step of steps.filter((s) => s.references.query_revision)) {
    const query = await queryRevisionData(tx, scope, step.references.query_revision.id);
    const ids = await matchingTraces(tx, scope, query, maxTraces);
    if (ids.length) await addScenarios(tx, scope, run.id as string, step.key, ids, "trace_id");
  }
  return simpleQueueRecord(queue, run);
}

/** One scenario per source item, its input result naming it (`testcase_id` or `trace_id`). */
async function addScenarios(
  tx: Queryable, scope: Scope, runId: string, stepKey: string, ids: string[],
  field: "testcase_id" | "trace_id" = "testcase_id",
) {
  const made = await insertRows(tx, scope, scenarios, ids.map(() => ({ run_id: runId, status: "pending" })));
  await insertRows(tx, scope, results, made.map((s, i) => ({
    run_id: runId, scenario_id: s.id, step_key: stepKey, [field]: ids[i], status: "success",
  })));
  return made;
}

/** Sends testcases to a `testcases` queue: each becomes a scenario (404 unknown, 409 closed run). */
export async function addTestcases(
  tx: Queryable, scope: Scope, queueId: string, testcaseIds: string[],
): Promise<string | null> {
  const found = await loadQueue(tx, scope, queueId);
  if (!found) return null;
  const steps = ((found.run.data as { steps?: RunStep[] } | null)?.steps ?? []);
  if (!steps.some((s) => s.key === TESTCASES_STEP)) {
    throw queueRefused("Cannot add testcases directly to a source-backed queue. Create a direct testcases queue instead.");
  }
  await assertOpenRuns(tx, scope, [found.run.id as string]);
  const unique = [...new Set(testcaseIds)];
  const known = new Set((await loadTestcases(tx, scope.projectId, unique)).map((t) => t.id));
  const missing = unique.filter((id) => !known.has(id));
  if (missing.length) throw testcasesNotFound(missing);
  await addScenarios(tx, scope, found.run.id as string, TESTCASES_STEP, unique);
  return queueId;
}

// A trace id as OTLP spells it (32 hex digits) or as a UUID; spans store the UUID, hosted invocations the hex.
const TRACE_ID = /^[0-9a-f]{32}$|^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const hexOf = (id: string) => id.replaceAll("-", "").toLowerCase();

/**
 * Sends traces to a `traces` queue: each becomes a scenario whose input names the trace (400 for another kind of
 * queue or a malformed id, 404 for a trace the project does not hold, 409 for a closed run).
 */
export async function addTraces(
  tx: Queryable, scope: Scope, queueId: string, traceIds: string[],
): Promise<string | null> {
  const found = await loadQueue(tx, scope, queueId);
  if (!found) return null;
  const kind = queueKind(found.run);
  if (kind === "queries" || kind === "testsets") {
    throw queueRefused("Cannot add traces directly to a source-backed queue. Create a direct traces queue instead.");
  }
  if (kind !== "traces") {
    throw queueRefused(
      "Cannot add traces to a queue whose scenarios come from another source. Create a traces queue instead.",
    );
  }
  const malformed = traceIds.find((id) => !TRACE_ID.test(id));
  if (malformed) throw queueRefused(`${JSON.stringify(malformed)} is not a trace id (32 hex digits or a UUID)`);
  await assertOpenRuns(tx, scope, [found.run.id as string]);
  const unique = [...new Set(traceIds.map(hexOf))];
  const known = new Set((await tx.query<{ id: string }>(
    `SELECT DISTINCT replace(trace_id::text, '-', '') AS id FROM spans
     WHERE project_id = $1 AND trace_id = ANY($2::uuid[])`,
    [scope.projectId, unique],
  )).map((r) => r.id));
  const missing = unique.filter((id) => !known.has(id));
  if (missing.length) throw tracesNotFound(missing);
  await addScenarios(tx, scope, found.run.id as string, TRACES_STEP, unique, "trace_id");
  return queueId;
}

/** The queue and its run, when both are the caller's. */
export async function loadQueue(
  db: Queryable, scope: Scope, queueId: string,
): Promise<{ queue: Row; run: Row } | null> {
  const [queue] = await fetchRows(db, scope, queues, [queueId]);
  if (!queue) return null;
  const [run] = await fetchRows(db, scope, runs, [queue.run_id as string]);
  return run ? { queue, run } : null;
}

/** Deletes a simple queue; its run's default queue goes with the run, as in the reference. */
export async function deleteSimpleQueue(tx: Queryable, scope: Scope, queueId: string): Promise<string | null> {
  const found = await loadQueue(tx, scope, queueId);
  if (!found) return null;
  const isDefault = (found.queue.flags as { is_default?: boolean }).is_default;
  if (isDefault) await deleteRows(tx, scope, runs, [found.run.id as string]);
  else await deleteRows(tx, scope, queues, [queueId]);
  return queueId;
}

/** The run's source kind, read from its input steps (null for a run that is not a simple queue's). */
export function queueKind(run: Row): SimpleQueueKind | null {
  const steps = ((run.data as { steps?: RunStep[] } | null)?.steps ?? []);
  if (steps.some((s) => s.key === TESTCASES_STEP && s.type === "input")) return "testcases";
  if (steps.some((s) => s.key === TRACES_STEP && s.type === "input")) return "traces";
  if (steps.some((s) => s.type === "input" && s.references.testset_revision)) return "testsets";
  if (steps.some((s) => s.type === "input" && s.references.query_revision)) return "queries";
  return null;
}

/** A queue in the reference's `SimpleQueue` shape: its assignments, repeats, settings and sources. */
export function simpleQueueRecord(queue: Row, run: Row): Row {
  const data = (queue.data ?? {}) as QueueData;
  const steps = ((run.data as { steps?: RunStep[] } | null)?.steps ?? []);
  const sources = (name: string) => [...new Set(steps.filter((s) => s.type === "input" && s.references[name])
    .map((s) => s.references[name].id))];
  const [queryIds, testsetIds] = [sources("query_revision"), sources("testset_revision")];
  const runRepeats = (run.data as { repeats?: number } | null)?.repeats ?? 1;
  const lanes = data.user_ids?.length ?? 0;
  const repeats = Math.max(runRepeats, lanes);
  const batched = data.batch_size != null || data.batch_offset != null;
  return {
    id: queue.id, name: queue.name, description: queue.description,
    created_at: queue.created_at, updated_at: queue.updated_at ?? queue.created_at, deleted_at: queue.deleted_at,
    created_by_id: queue.created_by_id, updated_by_id: queue.updated_by_id, deleted_by_id: queue.deleted_by_id,
    flags: queue.flags, tags: queue.tags, meta: queue.meta, status: queue.status,
    data: {
      kind: queueKind(run), queries: queryIds.length ? queryIds : null, testsets: testsetIds.length ? testsetIds : null,
      assignments: lanes ? data.user_ids : null, repeats: repeats > 1 ? repeats : null,
      settings: batched ? { batch_size: data.batch_size ?? null, batch_offset: data.batch_offset ?? null } : null,
    },
    run_id: queue.run_id,
  };
}
