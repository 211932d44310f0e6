import { api, useApi } from "../api.ts";
import { EmptyState } from "../components/empty-state.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Link } from "../components/link.tsx";
import { Loading } from "../components/loading.tsx";
import { StatusBadge } from "../components/run-progress.tsx";
import { Table } from "../components/table.tsx";
import { brief, compareRuns, metricLabel, num, testcaseInputs, type Comparison } from "../evaluations.ts";
import type { ViewProps } from "../router.ts";

/** Most changed testcases shown. */
const LIMIT = 200;

type Metric = Comparison["metrics"][number];
type Changed = Comparison["scenarios"]["changed"][number];

/** A delta with its sign, marked better or worse for the metrics whose direction is known. */
function Delta(props: { value: number | null; path: string }) {
  if (props.value === null) return <span class="muted">—</span>;
  if (props.value === 0) return <span class="muted">0</span>;
  const lowerIsBetter = /\.(duration|errors|tokens|costs)\./.test(props.path);
  const better = lowerIsBetter ? props.value < 0 : /outputs\.(score|success)$/.test(props.path) ? props.value > 0 : null;
  const cls = better === null ? "" : better ? "ev-pass" : "ev-failed";
  return <span class={cls}>{props.value > 0 ? "+" : "−"}{num(Math.abs(props.value))}</span>;
}

const runTitle = (r: { id: string; name: string | null }) => r.name || `Run …${r.id.slice(-8)}`;

/** `/evaluations/compare?runs=a,b`: each metric per run with its change from the first run, and the testcases whose results changed. */
export function EvaluationComparePage({ query }: ViewProps) {
  const ids = (query.get("runs") ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  const key = ids.join(",");
  const loaded = useApi(async (signal) => {
    if (ids.length < 2) return null;
    const comparison = await compareRuns(ids, LIMIT, signal);
    const testcaseIds = comparison.scenarios.changed.map((c) => c.testcase_id);
    const inputs = testcaseIds.length
      ? (await api<{ testcases: { id: string; data: Record<string, unknown> }[] }>("POST", "/testcases/query", { testcase_ids: testcaseIds }, { signal })).testcases
      : [];
    return { comparison, inputs: new Map(inputs.map((t) => [t.id, testcaseInputs(t.data)])) };
  }, [key]);

  const crumbs = <p class="crumbs"><Link href="/evaluations">Evaluations</Link> / Compare</p>;
  if (ids.length < 2) {
    return (
      <>
        {crumbs}
        <h1>Compare runs</h1>
        <EmptyState title="Pick two runs"><p>Open a run and use “Compare with” to choose another.</p></EmptyState>
      </>
    );
  }
  if (loaded.error) return <>{crumbs}<h1>Compare runs</h1><ErrorBanner message={loaded.error} onRetry={loaded.reload} /></>;
  if (!loaded.data) return <>{crumbs}<Loading /></>;
  const { comparison, inputs } = loaded.data;
  const { runs, metrics, scenarios } = comparison;
  const stepTitle = (m: { slug?: string; artifact: string; type?: string }) => `${m.type === "invocation" ? "application" : "evaluator"} ${m.slug ?? m.artifact}`;
  const slugOf = (artifact: string) => metrics.find((m) => m.step.artifact === artifact)?.step.slug ?? artifact.split(":")[0];

  return (
    <>
      {crumbs}
      <h1>Compare runs</h1>
      <ol class="ev-runs">
        {runs.map((r, i) => (
          <li>
            <span class="muted">{i === 0 ? "Base" : `Run ${i + 1}`}:</span> <Link href={`/evaluations/${r.id}`}>{runTitle(r)}</Link> <StatusBadge status={r.status} />
          </li>
        ))}
      </ol>
      <h2>Metrics</h2>
      {metrics.length === 0 ? (
        <EmptyState title="No metrics in common"><p>The runs share no application or evaluator with metrics.</p></EmptyState>
      ) : (
        <Table<Metric> caption="Metrics per run" rows={metrics} rowKey={(m) => `${m.step.artifact} ${m.path}`} columns={[
          { title: "Step", cell: (m) => <code>{stepTitle(m.step)}</code> },
          { title: "Metric", cell: (m) => <span title={m.path}>{metricLabel(m.path)}</span> },
          ...runs.map((r, i) => ({
            title: i === 0 ? runTitle(r) : `${runTitle(r)} (Δ)`,
            cell: (m: Metric) => (i === 0 || m.values[i] === null ? num(m.values[i]) : <>{num(m.values[i])} <Delta value={m.deltas[i]} path={m.path} /></>),
          })),
        ]} />
      )}
      <h2>Changed testcases</h2>
      <p class="muted">
        {scenarios.matched} testcases in every run, {scenarios.unmatched} not; {scenarios.changed_count} changed
        {scenarios.changed_count > scenarios.changed.length ? ` (the first ${scenarios.changed.length} shown)` : ""}.
      </p>
      {scenarios.changed.length === 0 ? (
        <EmptyState title="No result changed"><p>Every testcase in all runs got the same outputs and statuses.</p></EmptyState>
      ) : (
        <Table<Changed> caption="Testcases whose results changed" rows={scenarios.changed} rowKey={(c) => c.testcase_id} columns={[
          { title: "Inputs", cell: (c) => <code class="ev-cell">{brief(inputs.get(c.testcase_id) ?? c.testcase_id, 120)}</code> },
          { title: "Step", cell: (c) => <ul class="ev-plain">{c.steps.map((s) => <li><code>{slugOf(s.artifact)}</code></li>)}</ul> },
          ...runs.map((r, i) => ({
            title: runTitle(r),
            cell: (c: Changed) => (
              <ul class="ev-plain">
                {c.steps.map((s) => {
                  const o = s.results[i];
                  if (!o) return <li class="muted">not run</li>;
                  return <li><code class={o.status === "success" ? "ev-cell" : "ev-cell ev-failed"}>{o.status === "success" ? brief(o.outputs, 80) : `${o.status}: ${brief(o.outputs, 60)}`}</code></li>;
                })}
              </ul>
            ),
          })),
        ]} />
      )}
    </>
  );
}
