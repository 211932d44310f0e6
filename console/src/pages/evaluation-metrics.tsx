import { EmptyState } from "../components/empty-state.tsx";
import { Table } from "../components/table.tsx";
import {
  brief, metricLabel, num, passShare, pinned, type Run, type RunMetricsData, type Stats,
} from "../evaluations.ts";

interface MetricRow {
  path: string;
  stats: Stats;
}

/** Output metrics first, then cost, latency, tokens and errors. */
const rank = (path: string) => (path.startsWith("attributes.ag.data.") ? 0 : path.includes(".costs.") ? 1 : path.includes(".duration.") ? 2 : 3);

/** The share of `true` of a boolean metric, as a percentage. */
function passRate(stats: Stats): string {
  const share = passShare(stats);
  if (share === null) return "";
  return `${Math.round(share * 1000) / 10}% (${Math.round(share * (stats.count ?? 0))}/${stats.count ?? 0})`;
}

/** What a non-numeric metric's values were: `Paris ×2, Lima ×1`. */
function spread(stats: Stats): string {
  if (stats.type === "binary" || !stats.freq) return "";
  return brief(stats.freq.map((f) => `${brief(f.value, 30)} ×${f.count}`).join(", "), 80);
}

/** The run-wide metrics, a table per application and evaluator step. */
export function RunMetrics(props: { run: Run; metrics: RunMetricsData; running: boolean }) {
  const steps = (props.run.data?.steps ?? []).filter((s) => s.type !== "input" && props.metrics[s.key]);
  if (steps.length === 0) {
    return (
      <EmptyState title={props.running ? "No metrics yet" : "No metrics"}>
        <p>
          {props.running
            ? "They appear as the first scenarios finish, and grow as the others do."
            : "This run recorded no results to measure."}
        </p>
      </EmptyState>
    );
  }
  return (
    <div class="ev-metrics">
      {props.running && <p class="muted">So far: the scenarios done yet; final when the run ends.</p>}
      {steps.map((step) => {
        const rows: MetricRow[] = Object.entries(props.metrics[step.key])
          .map(([path, stats]) => ({ path, stats }))
          .sort((a, b) => rank(a.path) - rank(b.path) || a.path.localeCompare(b.path));
        return (
          <section aria-label={`Metrics of ${pinned(step)}`}>
            <h3>{step.type === "invocation" ? "Application" : "Evaluator"} <code>{pinned(step)}</code></h3>
            <Table<MetricRow> caption={`Metrics of ${pinned(step)}`} rows={rows} rowKey={(r) => r.path} columns={[
              { title: "Metric", cell: (r) => <span title={r.path}>{metricLabel(r.path)}</span> },
              { title: "Count", cell: (r) => num(r.stats.count) },
              { title: "Mean", cell: (r) => num(r.stats.mean) },
              { title: "p50", cell: (r) => num(r.stats.pcts?.p50), wide: true },
              { title: "p90", cell: (r) => num(r.stats.pcts?.p90), wide: true },
              { title: "Min–max", cell: (r) => (r.stats.min === undefined ? "—" : `${num(r.stats.min)}–${num(r.stats.max)}`), wide: true },
              { title: "Pass rate", cell: (r) => passRate(r.stats) || spread(r.stats) || "—" },
            ]} />
          </section>
        );
      })}
    </div>
  );
}
