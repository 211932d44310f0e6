import type { Scope } from "../../accounts/scope.ts";
import type { AppContext } from "../../context.ts";
import type { Queryable } from "../../db/database.ts";
import { complete, type Job } from "../../jobs/queue.ts";
import type { JobHandler } from "../../jobs/worker.ts";
import { workflows, type WorkflowData } from "../../kinds/workflows.ts";
import { secretCipher } from "../../secrets/cipher.ts";
import { projectSecrets } from "../../secrets/provider-secrets.ts";
import { loadTestcaseData } from "../../testsets/testcases.ts";
import { findRevision } from "../../versioning/revisions.ts";
import { storeBatchMetrics } from "../metrics/metrics.ts";
import { countBatch } from "../metrics/progress.ts";
import { storeScenarioMetrics } from "../metrics/scenario-metrics.ts";
import type { BatchWork } from "./batch-cells.ts";
import { CellInvoker } from "./cell-invoker.ts";
import { earlierResults, type EarlierResult } from "./cells.ts";
import { copyRows } from "../entities/entity-table.ts";
import { ProjectPermits } from "./project-permits.ts";
import { cellHashes } from "./result-hash.ts";
import { chunkOf, chunksAmong } from "./run-chunks.ts";
import { computedSteps, type RunStep } from "./run-steps.ts";
import { BATCH_QUEUE, finishIfDone } from "./run-end.ts";
import { type SourceItem, traceItems } from "./trace-sources.ts";
import { results } from "../entities/tables.ts";

export interface BatchPayload {
  run_id: string;
  scenario_ids: string[];
  /** Each scenario's testcase, when the plan queued the batch (a restarted run's batches read the input results). */
  testcase_ids?: string[];
  /** Each scenario's trace, for a run whose input is a query (trace-sources.ts). */
  trace_ids?: string[];
  /** The plan found no earlier result for any cell of these scenarios: a cached run does not look them up again. */
  fresh?: boolean;
}

interface RunRow {
  data: {
    steps: RunStep[];
    repeats?: number;
    concurrency?: { batch_size?: number | null; max_retries?: number | null } | null;
  };
  flags: { is_active?: boolean; is_closed?: boolean; is_cached?: boolean };
  created_by_id: string | null;
}

export interface ExecuteOptions {
  /** Batches of this process invoking at once; more are claimed, so one stores its results while the next invokes. */
  invoking: number;
  /** Invocations running at once within one batch, unless the run sets `data.concurrency.batch_size`. */
  concurrency: number;
  /**
   * Retries of an invocation that failed in a way trying again may cure (see `withRetries`), before the cell is
   * recorded as failed.
   */
  retries: number;
  retryBaseMs: number;
}

/**
 * Runs one batch of a server-run evaluation: for each scenario its testcase goes through the
 * application (when there is one), then each automatic evaluator grades the output, on the evaluation
 * thread (`computeCells`, through `CellInvoker`). A cell whose result hash already has a successful
 * result is reused instead of invoked when the run asks for it (`flags.is_cached`). The batch's results
 * are stored with the job's completion in one transaction, with each scenario's metrics (scenario-metrics.ts), so a
 * batch cut short by a crash is run again whole and stored once; the last batch closes the run with its metrics and
 * final status.
 */
export function batchHandler(ctx: AppContext, options: ExecuteOptions): JobHandler<BatchPayload> {
  const cipher = secretCipher(ctx.config);
  const { db } = ctx;
  const invoker = new CellInvoker(ctx.sandbox, ctx.traces);
  const invoking = new ProjectPermits(options.invoking);
  // What every invocation of this process is allowed (the same for every batch).
  const runtime: BatchWork["runtime"] = {
    allowPrivateHooks: ctx.config.allowPrivateHooks,
    limits: {
      templates: { maxBytes: ctx.config.templateMaxBytes, maxSteps: ctx.config.templateMaxSteps },
      mockDelayMs: ctx.config.mockMaxDelayMs,
    },
  };
  return {
    queue: BATCH_QUEUE,
    close: () => invoker.close(),
    async run(job: Job<BatchPayload>, signal: AbortSignal) {
      const { run_id: runId, scenario_ids: scenarioIds } = job.payload;
      const [run] = await db.query<RunRow>(
        "SELECT data, flags, created_by_id FROM evaluation_runs WHERE id = $1 AND project_id = $2",
        [runId, job.projectId],
      );
      const scope: Scope = { projectId: job.projectId!, userId: run?.created_by_id ?? null };
      if (!run || !run.flags.is_active || run.flags.is_closed) {
        await complete(db, job);
        return;
      }
      const steps = run.data.steps;
      const input = steps.find((s) => s.type === "input")!;
      const { app, graders } = computedSteps(steps);
      const revisions: BatchWork["revisions"] = {};
      for (const step of app ? [app, ...graders] : graders) {
        const { data } = await pinnedRevision(db, scope, step.revisionId);
        revisions[step.key] = { data, refs: step.references };
      }
      // A scenario's source item: its testcase, or the trace a query picked (whose id then stands in for a testcase's).
      const traced = Boolean(input.references.query_revision);
      const planned = job.payload.testcase_ids ?? job.payload.trace_ids;
      const testcaseOf = new Map(planned
        ? scenarioIds.map((id, i) => [id, planned[i]!])
        : (await db.query<{ scenario_id: string; item: string }>(
          `SELECT scenario_id, coalesce(testcase_id::text, trace_id) AS item FROM evaluation_results
           WHERE run_id = $1 AND step_key = $2 AND scenario_id = ANY($3::uuid[])`,
          [runId, input.key, scenarioIds],
        )).map((r) => [r.scenario_id, r.item]));
      const itemIds = [...new Set(testcaseOf.values())];
      const read: SourceItem[] = traced
        ? await traceItems(db, scope.projectId, itemIds)
        : await loadTestcaseData(db, scope.projectId, itemIds);
      const repeats = Math.max(1, run.data.repeats ?? 1);
      const chunks = await chunksAmong(db, runId, scenarioIds);
      const cells = scenarioIds.flatMap((scenarioId) => {
        const testcaseId = testcaseOf.get(scenarioId);
        if (!testcaseId) return [];
        const chunk = chunks[chunkOf(chunks, scenarioId)]?.first_id ?? null;
        return Array.from({ length: repeats }, (_, repeat) => ({
          scenarioId, repeat, testcaseId, chunk,
          hashes: Object.fromEntries(cellHashes(app, graders, testcaseId, repeat)),
        }));
      });
      const hashes = cells.flatMap((c) => Object.values(c.hashes));
      const reusable = run.flags.is_cached === true && !job.payload.fresh
        ? await earlierResults(db, scope.projectId, hashes, { outputs: true, traces: ctx.traces })
        : new Map<string, EarlierResult>();
      await invoking.acquire(scope.projectId, signal);
      const { cells: computed, statuses, metrics, scenarios } = await invoker.run({
        scope, app, graders, revisions, cells, testcases: Object.fromEntries(read.map((t) => [t.id, t])),
        reusable: Object.fromEntries(reusable), secrets: await projectSecrets(db, scope, cipher),
        limit: Math.max(1, run.data.concurrency?.batch_size ?? options.concurrency),
        retries: options.retries, retryBaseMs: options.retryBaseMs, runtime,
      }, signal).finally(() => invoking.release(scope.projectId));
      const scenarioStatus = new Map<string, string>(Object.entries(statuses));

      // The batch's traces are stored before its results, which point at them (reuse and metrics read them).
      await ctx.traces?.flush();
      await db.transaction(async (tx) => {
        const [still] = await tx.query<{ open: boolean }>(
          `SELECT coalesce((flags->>'is_active')::boolean, false)
             AND NOT coalesce((flags->>'is_closed')::boolean, false) AS open
           FROM evaluation_runs WHERE id = $1 FOR SHARE`,
          [runId],
        );
        if (still?.open) {
          // A scenario a client deleted meanwhile gets no results.
          const exist = await countBatch(tx, runId, computed, scenarioStatus);
          const kept = computed.filter((c) => exist.has(c.scenario_id))
            .map((c) => (traced ? { ...c, testcase_id: null } : c));
          await copyRows(tx, scope, results, kept.map((c) => ({ ...c, run_id: runId })));
          await storeBatchMetrics(tx, runId, metrics);
          await storeScenarioMetrics(tx, scope, runId, scenarios.filter((m) => exist.has(m.scenario_id)));
          await tx.query(
            `UPDATE evaluation_scenarios s SET status = x.status, updated_at = now()
             FROM unnest($1::uuid[], $2::text[]) AS x(id, status) WHERE s.id = x.id`,
            [[...scenarioStatus.keys()], [...scenarioStatus.values()]],
          );
        }
        await complete(tx, job);
      });
      await finishIfDone(db, scope, runId);
      collectAbove(GUARDED_RSS);
    },
  };
}

/**
 * A large evaluation leaves its batches' garbage (the COPY text of their traces and results, the buffers the
 * embedded database reads it from) to V8's major collections, which let the heap grow to several times what is
 * live: a 100,000-testcase run on PGlite peaked at 1.2 GB. Above `GUARDED_RSS`, a batch that ends starts an
 * incremental major collection (at most one a second; `--expose-gc`, as the server runs): with the evaluation
 * thread's young generation kept small too (cell-invoker.ts), the same run peaked at 0.73-0.83 GB, at the same speed
 * within the spread between runs.
 */
const GUARDED_RSS = 640 * 2 ** 20;
let collected = 0;

function collectAbove(rss: number): void {
  const gc = (globalThis as { gc?: (options: Record<string, string>) => void }).gc;
  if (!gc || performance.now() - collected < 1000 || process.memoryUsage.rss() < rss) return;
  collected = performance.now();
  gc({ type: "major", execution: "async" });
}

/** Pinned revisions, kept by id: a revision never changes, and every batch of a run reads the same few. */
const revisionCache = new Map<string, { id: string; data: WorkflowData }>();
const REVISION_CACHE_SIZE = 256;

async function pinnedRevision(db: Queryable, scope: Scope, id: string): Promise<{ id: string; data: WorkflowData }> {
  const key = `${scope.projectId}/${id}`;
  let revision = revisionCache.get(key);
  if (!revision) {
    const row = await findRevision(db, scope, workflows, { id });
    revision = { id: row.id, data: (row.data ?? {}) as WorkflowData };
    if (revisionCache.size >= REVISION_CACHE_SIZE) revisionCache.delete(revisionCache.keys().next().value!);
    revisionCache.set(key, revision);
  }
  return revision;
}
