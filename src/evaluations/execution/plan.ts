import type { Scope } from "../../accounts/scope.ts";
import type { Database, Queryable } from "../../db/database.ts";
import { complete, enqueue, type Job, savePayload } from "../../jobs/queue.ts";
import type { JobHandler } from "../../jobs/worker.ts";
import { testsets } from "../../kinds/testsets.ts";
import { loadLeaves, type StoredIds, unpackIds } from "../../testsets/chunk-lists.ts";
import { type Leaf, readChunks } from "../../testsets/chunks.ts";
import { findRevision } from "../../versioning/revisions.ts";
import { type Cell, earlierResults, reusedCell } from "./cells.ts";
import { copyRows } from "../entities/entity-table.ts";
import type { BatchPayload } from "./execute.ts";
import { addPlannedScenarios } from "../metrics/progress.ts";
import { refreshScenarioMetrics } from "../metrics/scenario-metrics.ts";
import { cellHashes } from "./result-hash.ts";
import { addChunks, type Chunk, type ChunkRows, type ChunkShape, chunkShape, completeChunks } from "./run-chunks.ts";
import { computedSteps, type RunStep } from "./run-steps.ts";
import { BATCH_QUEUE, finishIfDone, PLAN_QUEUE } from "./run-end.ts";
import { results, scenarios } from "../entities/tables.ts";
import { matchingTraces, queryRevisionData } from "./trace-sources.ts";

/**
 * Scenarios written a statement (each with its input result): statements stay small whatever the testset's
 * size, since the embedded database keeps for good the memory its largest statement needed.
 */
const PLAN_ROWS = 1000;
/** Testcases planned a transaction: the embedded database serves nothing else while one is open. */
const PLAN_CHUNK = 5000;
/**
 * Testcases the plan's first transaction plans: its batches start when it commits. At `PLAN_CHUNK`, a 10,000-testcase
 * run's first batch started 246–294 ms after the run was created, with a core idle meanwhile; at this size, 78–156 ms.
 */
const FIRST_PLAN_CHUNK = 1000;
/** Leaves looked at a transaction: a linked leaf writes one row, so a re-run links many a transaction. */
const LINK_LEAVES = 256;

export interface PlanPayload {
  run_id: string;
  /** Testcases (or traces) planned so far, by input step key: where a plan taken over after a crash goes on. */
  planned?: Record<string, number>;
  /** Start times a query step's traces come from: fixed when the plan is queued, so a retry sees the same ones. */
  window?: TraceWindow;
}

/** A window of trace start times (`oldest` inclusive, `newest` exclusive); a live run's scenarios carry it. */
export interface TraceWindow {
  oldest?: string;
  newest: string;
  /** Seconds the window spans, for a live run's scenarios (`interval`, with `timestamp` its newest). */
  interval?: number;
}

interface PlanRun {
  data: { steps: RunStep[]; repeats?: number };
  created_by_id: string | null;
  active: boolean;
  cached: boolean;
}

/**
 * Plans a server-run evaluation: one scenario per testcase of each pinned testset revision (its input
 * result names the testcase), and one batch job per `batchSize` scenarios. In a cached run
 * (`flags.is_cached`), a leaf chunk of the revision that an earlier run with the same steps completed is linked,
 * not planned (run-chunks.ts); a scenario whose every cell has an earlier result is stored done, with those
 * results, and needs no batch: a re-run after a small commit writes rows and runs batches for the chunks that
 * changed, and invokes only the new testcases. The plan goes a few thousand testcases a transaction, each with the
 * plan's position (its job's payload), so a plan cut short goes on where it stopped and plans every testcase exactly
 * once; batches of the first chunks run while the rest is planned, and no transaction holds the embedded database
 * for long.
 */
export function planHandler(db: Database, batchSize: number, maxTraces: number): JobHandler<PlanPayload> {
  return {
    queue: PLAN_QUEUE,
    async run(job: Job<PlanPayload>) {
      const runId = job.payload.run_id;
      const planned = { ...job.payload.planned };
      const [first] = await db.query<PlanRun>(RUN, [runId, job.projectId]);
      const scope = { projectId: job.projectId!, userId: first?.created_by_id ?? null };
      for (const step of first?.active ? first.data.steps.filter((s) => s.type === "input") : []) {
        if (step.references.query_revision) {
          await planTraces(db, { job, planned, scope, runId, step, batchSize, maxTraces });
          continue;
        }
        const revision = await findRevision(db, scope, testsets, { id: step.references.testset_revision.id });
        const leaves = await loadLeaves(db, scope.projectId, revision.data as StoredIds | null);
        const total = leaves.reduce((n, l) => n + l.count, 0);
        const shape = chunkShape(first!.data);
        // A leaf the revision holds twice (repeated rows) is planned each time: a run shows a linked row once.
        const seen = new Set<string>();
        const repeated = new Set(leaves.filter((l) => seen.has(l.hash) || !seen.add(l.hash)).map((l) => l.hash));
        for (let more = true; more;) {
          more = await db.transaction(async (tx) => {
            const [run] = await tx.query<PlanRun>(`${RUN} FOR UPDATE`, [runId, job.projectId]);
            if (!run?.active) return false; // stopped while planning
            const from = planned[step.key] ?? 0;
            const plan: LeafPlan = { scope, run, runId, stepKey: step.key, shape, repeated, batchSize };
            planned[step.key] = from + (await planLeaves(tx, plan, leaves, from));
            await tx.query(
              "UPDATE evaluation_runs SET status = 'running', updated_at = now() WHERE id = $1 AND status = 'queued'",
              [runId],
            );
            const saved = await savePayload(tx, job, { ...job.payload, planned });
            if (!saved) throw new Error("the plan's lease was lost");
            return planned[step.key]! < total;
          });
        }
      }
      await db.transaction(async (tx) => {
        await tx.query(
          `UPDATE evaluation_runs SET status = 'running', updated_at = now()
           WHERE id = $1 AND status = 'queued' AND coalesce((flags->>'is_active')::boolean, false)`,
          [runId],
        );
        await complete(tx, job);
      });
      // Batches that ended while the plan was open left the run for it to finish (all of them, when every
      // scenario was reused).
      await finishIfDone(db, scope, runId);
    },
  };
}

const TESTCASES: RowSource = { field: "testcase_id", stamp: null };

const RUN = `SELECT data, created_by_id, coalesce((flags->>'is_active')::boolean, false) AS active,
    coalesce((flags->>'is_cached')::boolean, false) AS cached
  FROM evaluation_runs WHERE id = $1 AND project_id = $2`;

interface LeafPlan {
  scope: Scope;
  run: PlanRun;
  runId: string;
  stepKey: string;
  shape: ChunkShape | null;
  repeated: Set<string>;
  batchSize: number;
}

/** What a query step is planned with. */
interface TracePlan {
  job: Job<PlanPayload>;
  planned: Record<string, number>;
  scope: Scope;
  runId: string;
  step: RunStep;
  batchSize: number;
  maxTraces: number;
}

/**
 * Plans a query step: one scenario per trace the query picks within the plan's window (its input result names the
 * trace), `PLAN_ROWS` a transaction, each saving the plan's position as the testset steps do.
 */
export async function planTraces(db: Database, p: TracePlan): Promise<void> {
  const { job, planned, scope, runId, step } = p;
  const window = job.payload.window;
  const query = await queryRevisionData(db, scope, step.references.query_revision.id);
  const ids = await matchingTraces(db, scope, query, p.maxTraces, window ?? {});
  const stamp = window?.interval ? { timestamp: window.newest, interval: window.interval } : null;
  for (let more = ids.length > (planned[step.key] ?? 0); more;) {
    more = await db.transaction(async (tx) => {
      const [run] = await tx.query<PlanRun>(`${RUN} FOR UPDATE`, [runId, job.projectId]);
      if (!run?.active) return false;
      const from = planned[step.key] ?? 0;
      const slice = ids.slice(from, from + PLAN_ROWS);
      const plan: LeafPlan = {
        scope, run, runId, stepKey: step.key, shape: null, repeated: new Set(), batchSize: p.batchSize,
      };
      await planRows(tx, plan, slice, { field: "trace_id", stamp });
      planned[step.key] = from + slice.length;
      await tx.query(
        "UPDATE evaluation_runs SET status = 'running', updated_at = now() WHERE id = $1 AND status = 'queued'",
        [runId],
      );
      if (!(await savePayload(tx, job, { ...job.payload, planned }))) throw new Error("the plan's lease was lost");
      return planned[step.key]! < ids.length;
    });
  }
}

/** How a plan's rows name their source, and the window a live run's rows are stamped with. */
interface RowSource {
  field: "testcase_id" | "trace_id";
  stamp: { timestamp: string; interval: number } | null;
}

/**
 * Plans the leaves from position `from`, up to `PLAN_CHUNK` testcases of scenarios (and any number of linked
 * leaves among the next `LINK_LEAVES`); returns how many testcases it covered. Each leaf planned whole is recorded
 * as a chunk of the run. A position inside a leaf (a plan saved before plans went by leaves) plans the rest of that
 * leaf without recording it.
 */
async function planLeaves(tx: Queryable, plan: LeafPlan, leaves: Leaf[], from: number): Promise<number> {
  const { scope, run, runId, shape } = plan;
  let first = 0;
  let at = 0;
  while (first < leaves.length && at + leaves[first]!.count <= from) at += leaves[first++]!.count;
  const window = leaves.slice(first, first + LINK_LEAVES);
  const skip = from - at;
  const sources = shape && run.cached
    ? await completeChunks(tx, scope.projectId, shape.signature, window.slice(skip ? 1 : 0).map((l) => l.hash))
    : new Map<string, ChunkRows>();
  const linked: Chunk[] = [];
  const fresh: { leaf: Leaf; skip: number }[] = [];
  let rows = 0;
  let covered = 0;
  const most = from === 0 ? FIRST_PLAN_CHUNK : PLAN_CHUNK;
  for (const [i, leaf] of window.entries()) {
    if (rows >= most) break;
    const planned = i === 0 ? skip : 0;
    const source = planned || plan.repeated.has(leaf.hash) ? undefined : sources.get(leaf.hash);
    if (source) linked.push({ chunk: leaf.hash, ...source });
    else {
      fresh.push({ leaf, skip: planned });
      rows += leaf.count - planned;
    }
    covered += leaf.count - planned;
  }
  const bytes = await readChunks(tx, scope.projectId, fresh.map((f) => f.leaf.hash));
  const ids = fresh.flatMap((f) => unpackIds(bytes.get(f.leaf.hash)!).slice(f.skip));
  const made: string[] = [];
  for (let i = 0; i < ids.length; i += PLAN_ROWS) {
    made.push(...(await planRows(tx, plan, ids.slice(i, i + PLAN_ROWS), TESTCASES)));
  }
  if (shape) {
    // Scenario ids are made in increasing order, so each leaf's scenarios are the range from its first to its last.
    const own: Chunk[] = [];
    let offset = 0;
    for (const f of fresh) {
      const count = f.leaf.count - f.skip;
      if (!f.skip && count > 0) {
        const [first_id, last_id] = [made[offset]!, made[offset + count - 1]!];
        const cells = count * shape.cells;
        own.push({
          chunk: f.leaf.hash, source_run_id: runId, source_step_key: plan.stepKey, first_id, last_id, count, cells,
        });
      }
      offset += count;
    }
    await addChunks(tx, scope.projectId, runId, plan.stepKey, shape.signature, [...linked, ...own]);
  }
  const scenarios = linked.reduce((n, c) => n + c.count, 0);
  if (scenarios > 0) {
    const reused = linked.reduce((n, c) => n + c.cells, 0);
    await addPlannedScenarios(tx, runId, { scenarios, succeeded: scenarios, reused });
  }
  return covered;
}

/**
 * Scenarios for these testcases, their input results, their batch jobs, and the run's counters; returns the new
 * scenarios' ids, in the order of `ids`. A cached run's scenario whose cells all have earlier results is stored as
 * done, with them and its metrics, instead of batched.
 */
async function planRows(tx: Queryable, plan: LeafPlan, ids: string[], source: RowSource): Promise<string[]> {
  const { scope, run, runId, stepKey, batchSize } = plan;
  const found = run.cached ? await earlierCells(tx, scope, run, ids) : null;
  const done = (i: number) => found !== null && found[i]!.length > 0 && found[i]!.every((c) => c !== null);
  const stamp = source.stamp ?? {};
  const made = await copyRows(tx, scope, scenarios, ids.map((_, i) => ({
    run_id: runId, status: done(i) ? "success" : "pending", ...stamp,
  })));
  await copyRows(tx, scope, results, made.flatMap((s, i) => [
    { run_id: runId, scenario_id: s.id, step_key: stepKey, [source.field]: ids[i], status: "success", ...stamp },
    ...(done(i) ? found![i]! : []).map((c) => ({ ...c!, run_id: runId, scenario_id: s.id })),
  ]));
  const left = made.flatMap((s, i) => (done(i) ? [] : [i]));
  // A scenario stored done runs in no batch: its metrics come from the earlier results it took.
  const stored = made.flatMap((s, i) => (done(i) ? [s.id as string] : []));
  await refreshScenarioMetrics(tx, scope, runId, stored, { returning: false });
  const batches = [];
  for (let at = 0; at < left.length; at += batchSize) {
    const slice = left.slice(at, at + batchSize);
    // A batch none of whose cells had an earlier result when planned does not look them up again.
    const fresh = found !== null && slice.every((i) => found[i]!.every((c) => c === null));
    const items = slice.map((i) => ids[i]!);
    const payload: BatchPayload = {
      run_id: runId, scenario_ids: slice.map((i) => made[i]!.id as string),
      ...(source.field === "trace_id" ? { trace_ids: items } : { testcase_ids: items }), ...(fresh && { fresh }),
    };
    batches.push({ queue: BATCH_QUEUE, projectId: scope.projectId, payload });
  }
  await enqueue(tx, batches);
  const reused = ids.reduce((n, _, i) => n + (done(i) ? found![i]!.length : 0), 0);
  await addPlannedScenarios(tx, runId, { scenarios: made.length, succeeded: made.length - left.length, reused });
  return made.map((s) => s.id as string);
}

/**
 * For each testcase, its cells (each computed step at each repeat), each the earlier result it can take or null;
 * none when the run computes nothing (its scenarios are left to batches).
 */
async function earlierCells(tx: Queryable, scope: Scope, run: PlanRun, ids: string[]): Promise<(Cell | null)[][]> {
  const { app, graders } = computedSteps(run.data.steps);
  if (!app && graders.length === 0) return ids.map(() => []);
  const repeats = Array.from({ length: Math.max(1, run.data.repeats ?? 1) }, (_, repeat) => repeat);
  const hashes = ids.map((id) => repeats.map((repeat) => cellHashes(app, graders, id, repeat)));
  const all = hashes.flatMap((byRepeat) => byRepeat.flatMap((h) => [...h.values()]));
  const earlier = await earlierResults(tx, scope.projectId, all, { outputs: false });
  return hashes.map((byRepeat) => byRepeat.flatMap((h, repeat) => [...h].map(([key, hash]) => {
    const found = earlier.get(hash);
    return found ? reusedCell(found, "", key, repeat) : null;
  })));
}
