import type { Scope } from "../../accounts/scope.ts";
import type { WorkflowData } from "../../kinds/workflows.ts";
import type { RunSandbox } from "../../runtime/code/sandbox.ts";
import { ERROR_TYPES } from "../../runtime/errors.ts";
import type { InvokeRequest } from "../../runtime/invoke-request.ts";
import type { ProviderSecret } from "../../runtime/providers/resolve.ts";
import { runRevision, type RevisionOutcome, type TraceSink } from "../../runtime/run-revision.ts";
import type { InvocationRecord } from "../../traces/traces.ts";
import { type Cell, cell, type EarlierResult, reusedCell } from "./cells.ts";
import { addResult, type StepPartials, StepStats } from "../metrics/metric-stats.ts";
import type { PinnedStep } from "./run-steps.ts";
import type { SourceItem } from "./trace-sources.ts";

/*
 * The invoking part of a batch: each scenario's testcase through the application, then each automatic evaluator on
 * its output, a cell a step. Everything it needs is plain data, read by the batch beforehand, so that it runs on the
 * evaluation thread (see cell-thread.ts) while the main thread serves requests and stores results.
 */

/** One batch's invocations and what they need. */
export interface BatchWork {
  scope: Scope;
  app: PinnedStep | null;
  graders: PinnedStep[];
  /** Each computed step's pinned revision, by step key. */
  revisions: Record<string, { data: WorkflowData; refs: Record<string, unknown> }>;
  /** Each cell, with the first scenario of the run's chunk that holds its scenario (null if none: run-chunks.ts). */
  cells: {
    scenarioId: string; repeat: number; testcaseId: string; hashes: Record<string, string>; chunk: string | null;
  }[];
  /** Each cell's source item by id: a testcase, or a trace with the outputs it recorded. */
  testcases: Record<string, SourceItem>;
  /** Earlier results a cached run takes instead of invoking, by result hash. */
  reusable: Record<string, EarlierResult>;
  secrets: ProviderSecret[];
  /** Invocations at once. */
  limit: number;
  retries: number;
  retryBaseMs: number;
  runtime: Pick<InvokeRequest, "allowPrivateHooks" | "limits">;
}

/** A batch's cells (without outputs, which only the evaluators downstream read) and each scenario's status. */
export interface BatchCells {
  cells: Omit<Cell, "outputs">[];
  statuses: Record<string, "success" | "failure">;
  /** What the cells add to their run's metrics, as a refresh would read it from their results and traces. */
  metrics: BatchMetrics[];
  /** Each scenario's own (variational) metrics over its cells at every repeat, in the shape of the run's. */
  scenarios: ScenarioMetrics[];
}

/** A scenario's metrics: by step key, then by metric path, what each metric's statistics are computed from. */
export interface ScenarioMetrics {
  scenario_id: string;
  partials: StepPartials;
}

/** What the cells of one chunk of the run (or of none) in a batch add to the run's metrics. */
export interface BatchMetrics {
  /** The first of these cells' scenarios. */
  first_scenario_id: string;
  cells: number;
  succeeded: number;
  metrics: StepPartials;
}

/** Where a batch's invocations leave their traces, and run custom code. */
export interface CellHost {
  traces: TraceSink;
  sandbox?: RunSandbox;
  signal: AbortSignal;
}

export async function computeCells(w: BatchWork, host: CellHost): Promise<BatchCells> {
  const { app, graders, scope } = w;
  const { signal } = host;
  // Each invocation's trace, until its cell has added it to the metrics.
  const recorded = new Map<string, InvocationRecord>();
  const traces: TraceSink = {
    add(scope, trace) {
      recorded.set(trace.traceId, trace);
      host.traces.add(scope, trace);
    },
  };
  const invoke = (step: PinnedStep, inputs: Record<string, unknown>, outputs: unknown, testcase: unknown) => {
    const r = w.revisions[step.key]!;
    return withRetries(w, signal, () => runRevision(traces, {
      scope, data: r.data, references: r.refs, inputs, outputs, testcase,
      options: { secrets: w.secrets, ...w.runtime, sandbox: host.sandbox },
    }));
  };
  const cells: Omit<Cell, "outputs">[] = [];
  const statuses: BatchCells["statuses"] = {};
  // Metrics by chunk, in the order of the batch's cells.
  const byChunk = new Map<string | null, { first: string; stats: StepStats; cells: number; succeeded: number }>();
  for (const { chunk, scenarioId } of w.cells) {
    if (!byChunk.has(chunk)) byChunk.set(chunk, { first: scenarioId, stats: new StepStats(), cells: 0, succeeded: 0 });
  }
  const byScenario = new Map<string, StepStats>();
  const count = (chunk: string | null, step: PinnedStep, c: Cell, trace: MetricTrace | null) => {
    const m = byChunk.get(chunk)!;
    let own = byScenario.get(c.scenario_id);
    if (!own) byScenario.set(c.scenario_id, (own = new StepStats()));
    const annotation = step.type === "annotation";
    // An annotation's outputs as its stored trace gives them back (JSON), whose leaves are metrics.
    const outputs = annotation && trace?.outputs != null ? JSON.parse(JSON.stringify(trace.outputs)) : null;
    const { latency_ms = null, usage = null } = trace ?? {};
    const source = { ...c, outputs, latency_ms, usage };
    addResult(m.stats, source, annotation);
    addResult(own, source, annotation);
    m.cells++;
    if (c.status === "success") m.succeeded++;
  };
  await eachLimited(w.cells, w.limit, async ({ scenarioId, repeat, testcaseId, hashes, chunk }) => {
    if (signal.aborted) throw signal.reason;
    const testcase = w.testcases[testcaseId];
    if (!testcase) return;
    const inputs = (testcase.data ?? {}) as Record<string, unknown>;
    const compute = async (step: PinnedStep, outputs: unknown): Promise<Cell> => {
      const hashId = hashes[step.key]!;
      const earlier = w.reusable[hashId];
      if (earlier) {
        const c = reusedCell(earlier, scenarioId, step.key, repeat);
        const { outputs, latency_ms = null, usage = null } = earlier;
        count(chunk, step, c, { outputs, latency_ms, usage });
        return c;
      }
      const c = cell(scenarioId, step.key, repeat, hashId, testcaseId, await invoke(step, inputs, outputs, testcase));
      const trace = c.trace_id ? recorded.get(c.trace_id) : undefined;
      if (c.trace_id) recorded.delete(c.trace_id);
      const usage = trace?.usage as MetricTrace["usage"];
      count(chunk, step, c, trace ? { outputs: trace.outputs, latency_ms: trace.latencyMs, usage } : null);
      return c;
    };
    const keep = ({ outputs: _, ...c }: Cell) => cells.push(c);
    let upstream: Cell | null = null;
    if (app) keep((upstream = await compute(app, undefined)));
    let ok = !upstream || upstream.status === "success";
    // Without an application, evaluators grade what the trace returned, or what the testcase holds as the output.
    const outputs = upstream ? upstream.outputs
      : testcase.outputs !== undefined ? testcase.outputs : (inputs.outputs ?? inputs.output ?? null);
    for (const grader of ok ? graders : []) {
      const graded = await compute(grader, outputs);
      keep(graded);
      ok &&= graded.status === "success";
    }
    if (!ok || !statuses[scenarioId]) statuses[scenarioId] = ok ? "success" : "failure";
  });
  const metrics = [...byChunk.values()].filter((m) => m.cells > 0).map((m) => ({
    first_scenario_id: m.first, cells: m.cells, succeeded: m.succeeded, metrics: m.stats.partials(),
  }));
  const scenarios = [...byScenario].map(([scenario_id, stats]) => ({ scenario_id, partials: stats.partials() }));
  return { cells, statuses, metrics, scenarios };
}

/** What a cell's trace gives its metrics. */
type MetricTrace = { outputs: unknown; latency_ms: number | null; usage: { total_tokens?: number } | null };

/**
 * Retries, with backoff, an invocation that a provider rate-limited, that the code sandbox had no room for, or
 * whose provider or hook was unreachable or answered a 5xx (a connection reset, a provider's bad minute);
 * any other outcome (a success, the application's own error, a timeout that already waited its full time) returns at
 * once.
 */
async function withRetries(
  o: { retries: number; retryBaseMs: number }, signal: AbortSignal, call: () => Promise<RevisionOutcome>,
) {
  for (let attempt = 0; ; attempt++) {
    const outcome = await call();
    const again = !outcome.ok && (outcome.error.transient || RETRIED.has(outcome.error.type));
    if (!again || attempt >= o.retries || signal.aborted) return outcome;
    const hinted = outcome.ok ? null : outcome.error.retryAfterSeconds;
    await new Promise((r) => setTimeout(r, hinted ? hinted * 1000 : o.retryBaseMs * 2 ** attempt));
  }
}

const RETRIED = new Set<string>([ERROR_TYPES.rateLimited, ERROR_TYPES.codeBusy]);

/** Runs `task` over `items`, at most `limit` at once. */
async function eachLimited<T>(items: T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await task(items[next++]);
  });
  await Promise.all(lanes);
}
