/**
 * Evaluation runs through `/api/evaluations/…` and `/api/simple/evaluations/…`: runs and their pinned
 * steps, progress, metrics, scenarios with their results, and comparisons.
 */
import { api } from "./api.ts";
import type { OkAnswer } from "./api-types.ts";

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

/** Step key → metric path → statistics. */
export type RunMetricsData = Record<string, Record<string, Stats>>;
type MetricRecord = OkAnswer<"/api/evaluations/metrics/query", "post">["metrics"][number];

const runWide = (rows: MetricRecord[], runId: string) =>
  (rows.find((m) => m.run_id === runId && !m.scenario_id && !m.timestamp)?.data ?? {}) as RunMetricsData;

/** The run-wide metrics: step key → metric path → statistics. */
export async function fetchRunMetrics(id: string, signal?: AbortSignal): Promise<RunMetricsData> {
  const answer = await api<OkAnswer<"/api/evaluations/metrics/query", "post">>(
    "POST", "/evaluations/metrics/query", { metrics: { run_id: id, scenario_ids: false } }, { signal },
  );
  return runWide(answer.metrics, id);
}

/** The run-wide metrics of many runs in one call: run id → metrics (a run without any is absent). */
export async function fetchManyRunMetrics(ids: string[], signal?: AbortSignal): Promise<Map<string, RunMetricsData>> {
  if (ids.length === 0) return new Map();
  const answer = await api<OkAnswer<"/api/evaluations/metrics/query", "post">>(
    "POST", "/evaluations/metrics/query",
    { metrics: { run_ids: ids, scenario_ids: false }, windowing: { limit: 1000 } }, { signal },
  );
  return new Map(ids.flatMap((id) => {
    const data = runWide(answer.metrics, id);
    return Object.keys(data).length ? [[id, data] as const] : [];
  }));
}

/**
 * The metrics of a running run so far: the server recomputes them from the results recorded yet (what the
 * reference's console does while a run goes on); the run's end computes them once more, in full.
 */
export async function refreshRunMetrics(id: string, signal?: AbortSignal): Promise<RunMetricsData> {
  const answer = await api<OkAnswer<"/api/evaluations/metrics/refresh", "post">>(
    "POST", "/evaluations/metrics/refresh", { metrics: { run_id: id } }, { signal },
  );
  return runWide(answer.metrics, id);
}

/** A run's headline score: an evaluator's pass rate (share of `true`) or mean score. */
export interface Score {
  step: string;
  label: string;
  kind: "pass" | "mean";
  /** 0–1 for a pass rate; the mean otherwise. */
  value: number;
  count: number;
}

/** The share of `true` of a binary metric (0–1), or null when it is not one. */
export function passShare(stats: Stats): number | null {
  if (stats.type !== "binary" || !stats.freq || !stats.count) return null;
  return (stats.freq.find((f) => f.value === true)?.count ?? 0) / stats.count;
}

/** The main scores of a run: each evaluator's binary outputs as pass rates and numeric outputs as means. */
export function mainScores(run: Run, metrics: RunMetricsData): Score[] {
  return stepsOf(run, "annotation").flatMap((step) => Object.entries(metrics[step.key] ?? {})
    .filter(([path]) => path.startsWith("attributes.ag.data.outputs."))
    .flatMap(([path, stats]): Score[] => {
      const label = `${pinned(step).replace(/ v\d+$/, "")} ${metricLabel(path)}`;
      const share = passShare(stats);
      if (share !== null) return [{ step: step.key, label, kind: "pass", value: share, count: stats.count ?? 0 }];
      if (typeof stats.mean !== "number") return [];
      return [{ step: step.key, label, kind: "mean", value: stats.mean, count: stats.count ?? 0 }];
    }));
}

/** A score as text: `66.7%` or `0.82`. */
export const scoreText = (s: Score) => (s.kind === "pass" ? `${Math.round(s.value * 1000) / 10}%` : num(s.value));

/**
 * What a run's badge says: its status, except that a run that ended "success" while every case failed an
 * evaluator (a 0% pass rate) or with failed scenarios is not shown as a plain success.
 */
export function outcomeOf(status: string, scores: Score[], failedScenarios: number): { label: string; tone: string } {
  if (status !== "success") return { label: status, tone: status };
  const none = scores.some((s) => s.kind === "pass" && s.count > 0 && s.value === 0);
  if (none) return { label: "0% pass", tone: "failure" };
  if (failedScenarios > 0) return { label: `${failedScenarios} failed`, tone: "errors" };
  if (scores.some((s) => s.kind === "pass" && s.value < 1)) return { label: "success", tone: "partial" };
  return { label: "success", tone: "success" };
}

/** How many scenarios were done at a moment (ms since the epoch). */
export interface Sample {
  at: number;
  done: number;
}

/** Seconds left at the pace of the scenarios done since the first sample, or null while it cannot be told. */
export function etaSeconds(first: Sample, now: Sample, total: number): number | null {
  const rate = (now.done - first.done) / Math.max(now.at - first.at, 1);
  if (!(rate > 0) || now.done >= total) return null;
  return Math.ceil((total - now.done) / rate / 1000);
}

/** A duration as `45 s`, `3 min 5 s`, `2 h 10 min`. */
export function durationText(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
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
