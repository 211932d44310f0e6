/**
 * Evaluation runs through `/api/evaluations/…` and `/api/simple/evaluations/…`: runs and their pinned
 * steps, progress, metrics, scenarios with their results, and comparisons.
 */
import { api } from "./api.ts";

export interface StepRef {
  id: string;
  slug: string;
  version?: string;
}

/** A pinned step of a run: `testset-…` (input), `application-…` (invocation), `evaluator-…` (annotation). */
export interface RunStep {
  key: string;
  type: "input" | "invocation" | "annotation";
  origin: string;
  references: Record<string, StepRef>;
}

export interface Run {
  id: string;
  name: string | null;
  description: string | null;
  status: string;
  flags: { is_active?: boolean; is_closed?: boolean; is_cached?: boolean } | null;
  data: { steps?: RunStep[]; repeats?: number } | null;
  created_at: string | null;
}

export interface Progress {
  status: string;
  scenarios: number;
  done: number;
  succeeded: number;
  failed: number;
  pending: number;
  cells: { invoked: number; reused: number; failed: number };
}

export interface Scenario {
  id: string;
  status: string;
}

export interface Result {
  id: string;
  scenario_id: string;
  step_key: string;
  repeat_idx: number;
  status: string;
  testcase_id: string | null;
  trace_id: string | null;
  error: { message?: string; type?: string } | null;
}

/** A metric's statistics, as metric-stats computes them. */
export interface Stats {
  type?: string;
  count?: number;
  mean?: number;
  min?: number;
  max?: number;
  pcts?: Record<string, number>;
  freq?: { value: unknown; count: number; density: number }[];
}

export interface Trace {
  trace_id: string;
  outputs: unknown;
  status: { code: number; message?: string };
  latency_ms: number;
}

/** Statuses a run does not leave on its own. */
export const TERMINAL = ["success", "errors", "failure", "cancelled"];
export const STATUSES = ["pending", "queued", "running", ...TERMINAL];

/** Whether the server may still change the run. */
export const isActive = (run: Pick<Run, "status" | "flags">) => !TERMINAL.includes(run.status) || !!run.flags?.is_active;

/** What a step pins: `capital-of v2`. */
export function pinned(step: RunStep): string {
  const family = step.key.split("-")[0];
  const artifact = step.references[family];
  const revision = step.references[`${family}_revision`];
  return `${artifact?.slug ?? step.key}${revision?.version ? ` v${revision.version}` : ""}`;
}

export const stepsOf = (run: Run, type: RunStep["type"]) => (run.data?.steps ?? []).filter((s) => s.type === type);

export async function queryRuns(options: { status?: string; next?: string | null; limit: number }, signal?: AbortSignal) {
  const answer = await api<{ runs: Run[]; windowing?: { next?: string | null } }>("POST", "/evaluations/runs/query", {
    run: options.status ? { status: options.status } : null,
    windowing: { limit: options.limit, next: options.next ?? null },
  }, { signal });
  return { items: answer.runs, next: answer.windowing?.next ?? null };
}

export async function fetchRun(id: string, signal?: AbortSignal): Promise<Run> {
  return (await api<{ run: Run | null }>("GET", `/evaluations/runs/${encodeURIComponent(id)}`, undefined, { signal })).run as Run;
}

export async function fetchProgress(id: string, signal?: AbortSignal): Promise<Progress | null> {
  return (await api<{ progress: Progress | null }>("GET", `/simple/evaluations/${encodeURIComponent(id)}/progress`, undefined, { signal })).progress;
}

/** The run-wide metrics: step key → metric path → statistics. */
export async function fetchRunMetrics(id: string, signal?: AbortSignal): Promise<Record<string, Record<string, Stats>>> {
  const answer = await api<{ metrics: { data: Record<string, Record<string, Stats>> | null; timestamp?: string | null }[] }>(
    "POST", "/evaluations/metrics/query", { metrics: { run_id: id, scenario_ids: false } }, { signal },
  );
  return answer.metrics.find((m) => !m.timestamp)?.data ?? {};
}

export interface ScenarioRow {
  scenario: Scenario;
  /** Step key → the results of repeat 0. */
  results: Record<string, Result>;
  inputs: Record<string, unknown> | null;
  /** Trace id → trace, for the results of this page. */
  traces: Map<string, Trace>;
}

/** A page of a run's scenarios with their results, testcase inputs and traces (four calls). */
export async function queryScenarioRows(runId: string, next: string | null, limit: number, signal?: AbortSignal) {
  const page = await api<{ scenarios: Scenario[]; windowing?: { next?: string | null } }>("POST", "/evaluations/scenarios/query", {
    scenario: { run_id: runId }, windowing: { limit, next },
  }, { signal });
  if (page.scenarios.length === 0) return { rows: [] as ScenarioRow[], next: null };
  const { results } = await api<{ results: Result[] }>("POST", "/evaluations/results/query", {
    result: { run_id: runId, scenario_ids: page.scenarios.map((s) => s.id), repeat_idx: 0 }, windowing: { limit: 1000 },
  }, { signal });
  const testcaseIds = [...new Set(results.map((r) => r.testcase_id).filter((id): id is string => !!id))];
  const traceIds = [...new Set(results.map((r) => r.trace_id).filter((id): id is string => !!id))];
  const [testcases, traces] = await Promise.all([
    testcaseIds.length ? api<{ testcases: { id: string; data: Record<string, unknown> }[] }>("POST", "/testcases/query", { testcase_ids: testcaseIds }, { signal })
      : { testcases: [] },
    traceIds.length ? api<{ traces: Trace[] }>("POST", "/traces/query", { trace_ids: traceIds }, { signal }) : { traces: [] },
  ]);
  const inputs = new Map(testcases.testcases.map((t) => [t.id, testcaseInputs(t.data)]));
  const traceMap = new Map(traces.traces.map((t) => [t.trace_id, t]));
  const rows = page.scenarios.map((scenario) => {
    const mine = results.filter((r) => r.scenario_id === scenario.id);
    const testcaseId = mine.find((r) => r.testcase_id)?.testcase_id;
    return {
      scenario,
      results: Object.fromEntries(mine.map((r) => [r.step_key, r])),
      inputs: testcaseId ? inputs.get(testcaseId) ?? null : null,
      traces: traceMap,
    };
  });
  return { rows, next: page.windowing?.next ?? null };
}

export interface Comparison {
  runs: { id: string; name: string | null; status: string }[];
  metrics: { step: { type?: string; slug?: string; artifact: string }; path: string; values: (number | null)[]; deltas: (number | null)[] }[];
  scenarios: {
    matched: number;
    unmatched: number;
    changed_count: number;
    next_offset: number | null;
    changed: { testcase_id: string; steps: { artifact: string; results: ({ status: string; outputs: unknown } | null)[] }[] }[];
  };
}

export async function compareRuns(runIds: string[], limit: number, signal?: AbortSignal): Promise<Comparison> {
  return (await api<{ comparison: Comparison }>("POST", "/evaluations/runs/compare", { run_ids: runIds, limit }, { signal })).comparison;
}

/** A metric path as a short label: `attributes.ag.data.outputs.score` → `score`. */
export function metricLabel(path: string): string {
  const known: Record<string, string> = {
    "attributes.ag.metrics.duration.cumulative": "latency (ms)",
    "attributes.ag.metrics.errors.cumulative": "errors",
    "attributes.ag.metrics.tokens.cumulative.total": "tokens",
    "attributes.ag.metrics.costs.cumulative.total": "cost",
  };
  if (known[path]) return known[path];
  return path.replace(/^attributes\.ag\.data\.outputs\./, "").replace(/^attributes\.ag\.metrics\./, "");
}

/** A number as a short string: integers whole, others with up to 3 decimals. */
export function num(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "—";
  if (Number.isInteger(value)) return String(value);
  return String(Math.round(value * 1000) / 1000);
}

/** A value as one short line (strings as they are, anything else as JSON), cut at `max` characters. */
export function brief(value: unknown, max = 120): string {
  const text = typeof value === "string" ? value : value === undefined ? "" : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A testcase's columns without the ones the server keeps for itself (`testcase_dedup_id`). */
export function testcaseInputs(data: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(data ?? {}).filter(([name]) => name !== "testcase_dedup_id"));
}
