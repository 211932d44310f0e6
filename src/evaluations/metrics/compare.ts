import type { Scope } from "../../accounts/scope.ts";
import type { Queryable } from "../../db/database.ts";
import { fromJsonb } from "../../db/jsonb-text.ts";
import { canonicalJson } from "../../testsets/canonical-json.ts";
import { runRows } from "../entities/linked-rows.ts";
import type { RunStep } from "../execution/run-steps.ts";
import { results } from "../entities/tables.ts";
import { compareNeedsTwo, runNotFound } from "../errors.ts";

/*
 * Runs compared side by side. Steps are matched by what they run (the application or evaluator
 * artifact), not by step key, since a new revision gets a new key; scenarios are matched by testcase
 * id, which is content-addressed, so "the same row" means the same data in both runs.
 */

/** Most changed scenarios listed in one answer; the rest are paged with `offset`. */
export const COMPARE_LIMIT = 1000;

/** Which changed scenarios an answer lists: `limit` of them from the `offset`-th, in testcase id order. */
export interface ComparePage {
  limit?: number;
  offset?: number;
}

interface RunInfo {
  id: string;
  name: string | null;
  status: string;
  data: { steps?: RunStep[] } | null;
}

interface Metric {
  mean?: number;
  count?: number;
  freq?: { value: unknown; count: number; density: number }[];
}

/** The artifact a step runs, as a match key across runs (`application:<id>`, `evaluator:<id>`). */
function artifactOf(step: RunStep): string | null {
  for (const family of ["application", "evaluator"]) {
    const ref = step.references[family];
    if (ref) return `${family}:${ref.id}`;
  }
  return null;
}

/** Metric deltas between runs and the testcases whose results changed: all of them counted, a page of them listed. */
export async function compareRuns(db: Queryable, scope: Scope, runIds: string[], page: ComparePage = {}) {
  if (runIds.length < 2) throw compareNeedsTwo();
  const runs = await db.query<RunInfo>(
    "SELECT id, name, status, data FROM evaluation_runs WHERE project_id = $1 AND id = ANY($2::uuid[])",
    [scope.projectId, runIds],
  );
  const byId = new Map(runs.map((r) => [r.id, r]));
  for (const id of runIds) if (!byId.has(id)) throw runNotFound(id);
  const ordered = runIds.map((id) => byId.get(id)!);

  // step key of each run → artifact key, for the steps that produce something.
  const stepArtifact = new Map<string, Map<string, string>>();
  const labels = new Map<string, { type: string; slug: string }>();
  for (const run of ordered) {
    const keys = new Map<string, string>();
    for (const step of run.data?.steps ?? []) {
      const artifact = artifactOf(step);
      if (!artifact) continue;
      keys.set(step.key, artifact);
      const family = artifact.split(":")[0];
      labels.set(artifact, { type: step.type, slug: step.references[family].slug });
    }
    stepArtifact.set(run.id, keys);
  }

  const metricRows = await db.query<{ run_id: string; data: Record<string, Record<string, Metric>> | null }>(
    "SELECT run_id, data FROM evaluation_metrics WHERE project_id = $1 AND run_id = ANY($2::uuid[]) AND scenario_id IS NULL AND \"timestamp\" IS NULL",
    [scope.projectId, runIds],
  );
  const values = new Map<string, (number | null)[]>(); // `${artifact} ${path}` → value per run
  for (const row of metricRows) {
    const index = runIds.indexOf(row.run_id);
    for (const [stepKey, paths] of Object.entries(row.data ?? {})) {
      const artifact = stepArtifact.get(row.run_id)?.get(stepKey);
      if (!artifact) continue;
      for (const [path, metric] of Object.entries(paths)) {
        const value = headline(metric);
        if (value === null) continue;
        const key = `${artifact} ${path}`;
        if (!values.has(key)) values.set(key, runIds.map(() => null));
        values.get(key)![index] = value;
      }
    }
  }
  const metrics = [...values].map(([key, perRun]) => {
    const [artifact, path] = key.split(" ");
    const base = perRun[0];
    return {
      step: { ...labels.get(artifact), artifact }, path, values: perRun,
      deltas: perRun.map((v) => (v === null || base === null ? null : v - base)),
    };
  });

  const scenarios = await changedScenarios(db, scope, runIds, stepArtifact, page);
  return { runs: ordered.map((r) => ({ id: r.id, name: r.name, status: r.status })), metrics, scenarios };
}

/** A metric's headline number: the mean of a number, the share of `true` of a boolean. */
function headline(m: Metric): number | null {
  if (typeof m.mean === "number") return m.mean;
  const truthy = m.freq?.find((f) => f.value === true);
  return truthy ? truthy.density : null;
}

/** What two results must share to be the same outcome: status and outputs. */
const outcomeKey = (o: { status: string; outputs: unknown } | undefined) =>
  (o ? `${o.status} ${canonicalJson(o.outputs ?? null)}` : "-");

/** The outputs of these traces' root spans, by trace id, read a page of ids at a time. */
async function traceOutputs(db: Queryable, projectId: string, traceIds: string[]): Promise<Map<string, unknown>> {
  const out = new Map<string, unknown>();
  const ids = [...new Set(traceIds)];
  for (let i = 0; i < ids.length; i += 5000) {
    const rows = await db.query<{ trace_id: string; outputs: unknown }>(
      `SELECT trace_id, outputs FROM traces
       WHERE project_id = $1 AND trace_uuid = ANY(ARRAY(SELECT trace_uuid(id) FROM unnest($2::text[]) AS id))`,
      [projectId, ids.slice(i, i + 5000)],
    );
    for (const r of rows) out.set(r.trace_id, r.outputs);
  }
  return out;
}

/** Testcases present in every run whose step outputs differ between runs, and how many matched or did not. */
async function changedScenarios(
  db: Queryable, scope: Scope, runIds: string[], stepArtifact: Map<string, Map<string, string>>, page: ComparePage,
) {
  const { limit = COMPARE_LIMIT, offset = 0 } = page;
  const params: unknown[] = [scope.projectId];
  const from = await runRows(db, scope.projectId, results, runIds, params);
  const found = await db.query<{ run_id: string; testcase_id: string; step_key: string; status: string; trace_id: string }>(
    `SELECT r.run_id, r.testcase_id, r.step_key, r.status, r.trace_id
     FROM ${from} r
     WHERE r.project_id = $1 AND r.testcase_id IS NOT NULL AND r.hash_id IS NOT NULL AND r.repeat_idx = 0
     ORDER BY r.testcase_id, r.run_id`,
    params,
  );
  // The outputs are read by trace id apart: joined to the traces view, a planner without statistics on a large run
  // compared every result with every root span of the project (a minute for 5,000 testcases).
  const outputs = await traceOutputs(db, scope.projectId, found.map((r) => r.trace_id).filter(Boolean));
  const rows = found.map((r) => ({ ...r, outputs: outputs.get(r.trace_id) ?? null }));
  // testcase → artifact → run index → outcome
  const table = new Map<string, Map<string, ({ status: string; outputs: unknown } | undefined)[]>>();
  for (const r of rows.map(fromJsonb)) {
    const artifact = stepArtifact.get(r.run_id)?.get(r.step_key);
    if (!artifact) continue;
    let steps = table.get(r.testcase_id);
    if (!steps) table.set(r.testcase_id, (steps = new Map()));
    let perRun = steps.get(artifact);
    if (!perRun) steps.set(artifact, (perRun = runIds.map(() => undefined)));
    perRun[runIds.indexOf(r.run_id)] = { status: r.status, outputs: r.outputs };
  }
  const maps = runIds.map((id) => new Set(stepArtifact.get(id)?.values() ?? []));
  const common = new Set([...maps[0]].filter((artifact) => maps.every((m) => m.has(artifact))));
  let matched = 0;
  let unmatched = 0;
  let changedCount = 0;
  const changed = [];
  for (const [testcaseId, steps] of table) {
    const everywhere = [...steps.values()].some((perRun) => perRun.every((o) => o !== undefined));
    if (!everywhere) {
      unmatched++;
      continue;
    }
    matched++;
    // A step that only some runs have is not a change of result.
    const differing = [...steps].filter(([artifact]) => common.has(artifact))
      .filter(([, perRun]) => new Set(perRun.map(outcomeKey)).size > 1);
    if (!differing.length) continue;
    if (changedCount >= offset && changed.length < limit) {
      changed.push({ testcase_id: testcaseId, steps: differing.map(([artifact, perRun]) => ({ artifact, results: perRun })) });
    }
    changedCount++;
  }
  const next = offset + changed.length;
  return { matched, unmatched, changed_count: changedCount, changed, next_offset: next < changedCount ? next : null };
}
