import type { Queryable } from "../../db/database.ts";
import { fromJsonb } from "../../db/jsonb-text.ts";
import type { RevisionOutcome } from "../../runtime/run-revision.ts";
import type { TraceWriter } from "../../traces/trace-writer.ts";

/*
 * The cells of a server-run evaluation, and the earlier results a cached run takes in place of invoking
 * a step.
 */

/** A cell of the run: one step of one scenario at one repeat, and what it produced. */
export interface Cell {
  scenario_id: string;
  step_key: string;
  repeat_idx: number;
  hash_id: string;
  testcase_id: string;
  status: "success" | "failure";
  trace_id: string | null;
  error: { message: string; type?: string; code?: number } | null;
  flags: { is_reused?: boolean };
  outputs: unknown;
}

/** An earlier successful result a cell of a cached run (`flags.is_cached`) can take instead of invoking. */
export interface EarlierResult {
  hash_id: string;
  testcase_id: string;
  status: "success";
  trace_id: string | null;
  error: null;
  /** What its trace recorded, when asked for: the outputs an evaluator downstream grades, and for metrics. */
  outputs?: unknown;
  latency_ms?: number | null;
  usage?: { total_tokens?: number } | null;
}

/**
 * The newest successful result in the project for each hash whose trace is stored. With `traces` (this
 * process's trace writer), a trace still waiting in it is written first and the lookup made again, so no
 * result is missed; without, such a result is left out, for the caller to invoke or look up later.
 */
export async function earlierResults(
  db: Queryable, projectId: string, hashes: string[], options: { outputs: boolean; traces?: TraceWriter },
): Promise<Map<string, EarlierResult>> {
  if (hashes.length === 0) return new Map();
  // One probe a hash for its newest result, however many runs have reused it since (migration 018).
  const lookup = () => db.query<EarlierResult & { traced: boolean }>(
    `SELECT h.hash_id, r.testcase_id, r.status, r.trace_id, r.error,
       ${options.outputs ? "t.outputs, t.latency_ms, t.usage," : ""} t.trace_id IS NOT NULL AS traced
     FROM unnest($2::uuid[]) AS h (hash_id)
     CROSS JOIN LATERAL (
       SELECT testcase_id, status, trace_id, error FROM evaluation_results
       WHERE project_id = $1 AND hash_id = h.hash_id AND status = 'success'
       ORDER BY created_at DESC LIMIT 1) r
     LEFT JOIN traces t ON t.project_id = $1 AND t.trace_uuid = trace_uuid(r.trace_id)`,
    [projectId, [...new Set(hashes)]],
  );
  let rows = await lookup();
  if (rows.some((r) => !r.traced) && options.traces) {
    await options.traces.flush();
    rows = await lookup();
  }
  const stored = rows.filter((r) => r.traced).map(({ traced: _, ...r }) => (options.outputs ? fromJsonb(r) : r));
  return new Map(stored.map((r) => [r.hash_id, r]));
}

/** A cell from an invocation's outcome. */
export const cell = (
  scenarioId: string, stepKey: string, repeat: number, hashId: string, testcaseId: string, o: RevisionOutcome,
): Cell => ({
  scenario_id: scenarioId, step_key: stepKey, repeat_idx: repeat, hash_id: hashId, testcase_id: testcaseId,
  status: o.ok ? "success" : "failure", trace_id: o.traceId, flags: {},
  error: o.ok ? null : { message: o.error.message, type: o.error.type, code: o.error.statusCode },
  outputs: o.ok ? o.outputs : null,
});

/** A cell taking an earlier result with the same hash (`flags.is_reused`): its trace, not a new invocation. */
export const reusedCell = (earlier: EarlierResult, scenarioId: string, stepKey: string, repeat: number): Cell => ({
  scenario_id: scenarioId, step_key: stepKey, repeat_idx: repeat, hash_id: earlier.hash_id,
  testcase_id: earlier.testcase_id, status: "success", trace_id: earlier.trace_id, error: null,
  flags: { is_reused: true }, outputs: earlier.outputs ?? null,
});
