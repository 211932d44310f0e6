import { EmptyState } from "../components/empty-state.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { IdChip } from "../components/id-chip.tsx";
import { Link } from "../components/link.tsx";
import { ListFooter } from "../components/list-footer.tsx";
import { Loading } from "../components/loading.tsx";
import { StatusBadge } from "../components/run-progress.tsx";
import { Table, type Column } from "../components/table.tsx";
import { brief, pinned, queryScenarioRows, stepsOf, type Result, type Run, type ScenarioRow } from "../evaluations.ts";
import { usePagedList } from "../paged-list.ts";

const PAGE = 20;

/** An evaluator's verdict: its score and success, or its error. */
function Verdict(props: { result: Result | undefined; row: ScenarioRow }) {
  const r = props.result;
  if (!r) return <span class="muted">—</span>;
  if (r.error || r.status === "failure") return <span class="ev-failed" title={r.error?.type}>error: {brief(r.error?.message ?? r.status, 80)}</span>;
  const outputs = r.trace_id ? props.row.traces.get(r.trace_id)?.outputs : undefined;
  if (outputs && typeof outputs === "object" && !Array.isArray(outputs)) {
    const o = outputs as Record<string, unknown>;
    if ("score" in o || "success" in o) {
      return (
        <span class="ev-verdict">
          {"score" in o && <span>score {brief(o.score, 20)}</span>}
          {"success" in o && <span class={o.success === true ? "ev-pass" : "ev-failed"}>{o.success === true ? "pass" : "fail"}</span>}
        </span>
      );
    }
  }
  return outputs === undefined ? <span class="muted">{r.status}</span> : <code>{brief(outputs, 60)}</code>;
}

/** Whether a scenario failed: its status, an error in any step, or an evaluator's `success: false`. */
export function scenarioFailed(row: ScenarioRow): boolean {
  if (row.scenario.status === "failure" || row.scenario.status === "errors") return true;
  return Object.values(row.results).some((r) => {
    if (r.error || r.status === "failure") return true;
    const outputs = r.trace_id ? row.traces.get(r.trace_id)?.outputs : undefined;
    return !!outputs && typeof outputs === "object" && (outputs as Record<string, unknown>).success === false;
  });
}

/**
 * A run's scenarios, a page at a time: testcase inputs, the application's output, each evaluator's verdict, a link
 * to the scenario's trace in Traces, and a button that opens it beside the table; `failedOnly` keeps the failed ones
 * of the pages loaded.
 */
export function ScenarioTable(props: {
  run: Run;
  refresh: string;
  failedOnly: boolean;
  onFailedOnly: (on: boolean) => void;
  onOpenTrace: (traceId: string) => void;
}) {
  const { run } = props;
  const list = usePagedList(async (from, signal) => {
    const page = await queryScenarioRows(run.id, from, PAGE, signal);
    return { items: page.rows, next: page.next };
  }, [run.id, props.refresh], { keepWhileReloading: true });
  const { items: rows, loading, error, reload } = list;

  const apps = stepsOf(run, "invocation");
  const judges = stepsOf(run, "annotation");
  const main = apps[0];
  const columns: Column<ScenarioRow>[] = [
    { title: "Status", cell: (r) => <StatusBadge status={r.scenario.status} /> },
    { title: "Inputs", cell: (r) => (r.inputs ? <code class="ev-cell">{brief(r.inputs, 160)}</code> : <span class="muted">—</span>) },
    ...apps.map((step): Column<ScenarioRow> => ({
      title: apps.length > 1 ? `Output of ${pinned(step)}` : "Output",
      cell: (r) => {
        const result = r.results[step.key];
        if (result?.error || result?.status === "failure") return <span class="ev-failed">error: {brief(result.error?.message ?? "failed", 80)}</span>;
        const trace = result?.trace_id ? r.traces.get(result.trace_id) : undefined;
        return trace ? <code class="ev-cell">{brief(trace.outputs, 160)}</code> : <span class="muted">{result?.status ?? "—"}</span>;
      },
    })),
    ...judges.map((step): Column<ScenarioRow> => ({ title: pinned(step), cell: (r) => <Verdict result={r.results[step.key]} row={r} /> })),
    {
      title: "Trace",
      wide: true,
      cell: (r) => {
        const id = (main ? r.results[main.key] : Object.values(r.results).find((x) => x.trace_id))?.trace_id;
        if (!id) return <span class="muted">—</span>;
        const label = `View the trace of ${r.inputs ? brief(r.inputs, 60) : r.scenario.id} in Traces`;
        return (
          <span class="ev-trace-link">
            <IdChip id={id} label="trace id" /> <Link href={`/traces/${id}`} aria-label={label}>View</Link>
          </span>
        );
      },
    },
    {
      title: "Open",
      cell: (r) => {
        const id = (main ? r.results[main.key] : Object.values(r.results).find((x) => x.trace_id))?.trace_id;
        const label = `Open the trace of ${r.inputs ? brief(r.inputs, 60) : r.scenario.id}`;
        if (!id) return null;
        return <button type="button" aria-label={label} onClick={() => props.onOpenTrace(id)}>Trace</button>;
      },
    },
  ];
  const failed = rows.filter(scenarioFailed);
  const shown = props.failedOnly ? failed : rows;
  const filter = (
    <div class="ev-filter">
      <label>
        <input
          type="checkbox"
          checked={props.failedOnly}
          onChange={(e) => props.onFailedOnly(e.currentTarget.checked)}
        />
        {" "}Failed only
      </label>
      <span class="muted">{failed.length} of {rows.length} loaded scenarios failed</span>
    </div>
  );

  if (error && rows.length === 0) return <ErrorBanner message={error} onRetry={reload} />;
  if (loading && rows.length === 0) return <Loading />;
  if (rows.length === 0) return <EmptyState title="No scenarios"><p>This run has no testcases to run.</p></EmptyState>;
  return (
    <>
      {filter}
      {shown.length === 0 ? (
        <EmptyState title="No failed scenario">
          <p>None of the scenarios loaded failed. Untick “Failed only” to see them all.</p>
        </EmptyState>
      ) : (
        <Table
          caption={`Scenarios of ${run.name ?? run.id}`} columns={columns} rows={shown} rowKey={(r) => r.scenario.id}
        />
      )}
      <ListFooter list={list} />
    </>
  );
}
