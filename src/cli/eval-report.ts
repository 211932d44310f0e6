import type { EvaluationProgress, Kind, TesseraClient } from "../../packages/client/src/index.ts";
import { NotFound } from "./client-lookup.ts";
import { isUuid, parseVersion } from "./client-refs.ts";
import { UsageError } from "./command.ts";

/*
 * What `tessera eval run|show|compare` share: revisions named as a user types them, metric rows named
 * as a user reads them (`exact.success`), and the progress line.
 */

const singular = (kind: Kind) => kind.slice(0, -1);

/** SLUG, SLUG@VERSION or a revision id (optionally what ENV serves) → the revision it names. */
export async function revisionFor(client: TesseraClient, kind: Kind, text: string, environment?: string) {
  const n = singular(kind);
  let refs: Record<string, unknown>;
  const at = text.lastIndexOf("@");
  if (isUuid(text)) refs = { [`${n}_revision_ref`]: { id: text.toLowerCase() } };
  else if (environment) refs = { [`${n}_ref`]: { slug: text }, environment_ref: { slug: environment } };
  else if (at > 0) refs = { [`${n}_ref`]: { slug: text.slice(0, at) }, [`${n}_revision_ref`]: { version: parseVersion(text.slice(at + 1), `The version in "${text}"`) } };
  else refs = { [`${n}_ref`]: { slug: text } };
  const revision = await client.retrieveRevision(kind, refs);
  if (!revision) throw new NotFound(`No ${n} revision for "${text}"${environment ? ` in ${environment}` : ""}`);
  return revision as { id: string; version: string; slug: string; artifact_slug: string } & Record<string, unknown>;
}

/** One row of a metrics table: the step's artifact, the metric, its headline value. */
export interface MetricRow {
  step: string;
  metric: string;
  value: number;
  count: number;
}

const SHORT: Record<string, string> = {
  "attributes.ag.metrics.duration.cumulative": "duration_ms",
  "attributes.ag.metrics.errors.cumulative": "errors",
  "attributes.ag.metrics.tokens.cumulative.total": "tokens",
};

/** A metric path as people say it: `success` for `attributes.ag.data.outputs.success`, `errors`, `duration_ms`. */
export const shortMetric = (path: string) => SHORT[path] ?? (path.replace(/^attributes\.ag\.data\.outputs\.?/, "") || "output");

/** The run's metrics as rows: numbers by their mean, booleans by their share of true. */
export function metricRows(data: Record<string, Record<string, any>> | null, steps: { key: string; references: Record<string, { slug: string }> }[]): MetricRow[] {
  const rows: MetricRow[] = [];
  for (const [stepKey, paths] of Object.entries(data ?? {})) {
    const step = steps.find((s) => s.key === stepKey);
    const name = step?.references.evaluator?.slug ?? step?.references.application?.slug ?? stepKey;
    for (const [path, m] of Object.entries(paths)) {
      const truthy = m.freq?.find((f: { value: unknown }) => f.value === true);
      const value = typeof m.mean === "number" ? m.mean : truthy ? truthy.density : null;
      if (value !== null) rows.push({ step: name, metric: shortMetric(path), value, count: m.count ?? 0 });
    }
  }
  return rows;
}

export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n") + "\n";
}

export const formatValue = (v: number | null) => (v === null ? "-" : Number.isInteger(v) ? String(v) : v.toFixed(4));

/** `--fail-under STEP.METRIC=VALUE` (or `METRIC=VALUE` when one step has it) as a check on the rows. */
export function parseThreshold(text: string): { step: string | null; metric: string; min: number } {
  const match = /^(?:([^.=]+)\.)?([^=]+)=(-?[\d.]+)$/.exec(text);
  if (!match || !Number.isFinite(Number(match[3]))) throw new UsageError(`--fail-under takes METRIC=VALUE or EVALUATOR.METRIC=VALUE, got "${text}"`);
  return { step: match[1] ?? null, metric: match[2], min: Number(match[3]) };
}

/** The thresholds a run's metrics do not meet, as sentences (a metric that is missing fails too). */
export function unmet(rows: MetricRow[], thresholds: ReturnType<typeof parseThreshold>[]): string[] {
  const failures: string[] = [];
  for (const t of thresholds) {
    const found = rows.filter((r) => r.metric === t.metric && (t.step === null || r.step === t.step));
    const label = `${t.step ? `${t.step}.` : ""}${t.metric}`;
    if (found.length === 0) failures.push(`${label}: no such metric in this run`);
    for (const r of found) if (r.value < t.min) failures.push(`${r.step}.${r.metric} = ${formatValue(r.value)} < ${t.min}`);
  }
  return failures;
}

/** One progress line: done/total, failures, reuse, rate and what is left. */
export function progressLine(p: EvaluationProgress, elapsedMs: number): string {
  const rate = elapsedMs > 0 ? (p.done / elapsedMs) * 1000 : 0;
  const eta = rate > 0 && p.pending > 0 ? ` ETA ${Math.ceil(p.pending / rate)}s` : "";
  const width = 24;
  const filled = p.scenarios ? Math.round((p.done / p.scenarios) * width) : 0;
  return `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${p.done}/${p.scenarios} done, ${p.failed} failed, `
    + `${p.cells.reused} reused, ${rate.toFixed(1)}/s${eta} (${p.status})`;
}
