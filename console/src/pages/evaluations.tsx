import { EmptyState } from "../components/empty-state.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Link } from "../components/link.tsx";
import { ListFooter } from "../components/list-footer.tsx";
import { Loading } from "../components/loading.tsx";
import { ProgressSummary, StatusBadge, useProgress } from "../components/run-progress.tsx";
import { Table, type Column } from "../components/table.tsx";
import { Time } from "../components/time.tsx";
import { pinned, queryRuns, STATUSES, stepsOf, type Run } from "../evaluations.ts";
import { usePagedList } from "../paged-list.ts";
import { setQuery, type ViewProps } from "../router.ts";
import { NewEvaluation } from "./evaluation-new.tsx";

const PAGE = 25;

/** `/evaluations?status=…&new=1`: the project's runs, newest first, a page at a time, and the form that starts one. */
export function EvaluationsPage({ query }: ViewProps) {
  const status = STATUSES.includes(query.get("status") ?? "") ? query.get("status")! : "";
  const creating = query.get("new") === "1";
  return (
    <>
      <h1>Evaluations</h1>
      <div class="controls">
        <label class="ev-field">
          Status
          <select value={status} onChange={(e) => setQuery({ status: e.currentTarget.value })}>
            <option value="">Any</option>
            {STATUSES.map((s) => <option value={s}>{s}</option>)}
          </select>
        </label>
        {!creating && (
          <button type="button" class="button-primary" onClick={() => setQuery({ new: "1" }, { replace: false })}>New evaluation</button>
        )}
      </div>
      {creating && <NewEvaluation onCancel={() => setQuery({ new: null })} />}
      <RunList status={status} />
    </>
  );
}

function RunList(props: { status: string }) {
  const runs = usePagedList(
    (from, signal) => queryRuns({ status: props.status || undefined, next: from, limit: PAGE }, signal),
    [props.status],
  );
  const { items, loading, error, reload } = runs;

  const steps = (run: Run, type: "input" | "invocation" | "annotation") => {
    const list = stepsOf(run, type);
    return list.length ? <span class="ev-pins">{list.map((s) => <code>{pinned(s)}</code>)}</span> : <span class="muted">—</span>;
  };
  const columns: Column<Run>[] = [
    {
      title: "Name",
      cell: (r) => (
        <>
          <Link href={`/evaluations/${r.id}`}>{r.name || `Run …${r.id.slice(-8)}`}</Link>
          {r.flags?.is_closed && <span class="badge">closed</span>}
        </>
      ),
    },
    { title: "Status", cell: (r) => <RowState run={r} /> },
    { title: "Testset", cell: (r) => steps(r, "input"), wide: true },
    { title: "Application", cell: (r) => steps(r, "invocation"), wide: true },
    { title: "Evaluators", cell: (r) => steps(r, "annotation"), wide: true },
    { title: "Created", cell: (r) => <Time value={r.created_at} />, wide: true },
  ];

  if (error && items.length === 0) return <ErrorBanner message={error} onRetry={reload} />;
  if (loading && items.length === 0) return <Loading />;
  if (items.length === 0) {
    return props.status ? (
      <EmptyState title={`No ${props.status} evaluations`}><p>Choose another status, or any.</p></EmptyState>
    ) : (
      <EmptyState title="No evaluations yet">
        <p>Start one with “New evaluation”, <code>tessera eval run</code>, or <code>POST /api/simple/evaluations/</code>.</p>
      </EmptyState>
    );
  }
  return (
    <>
      <Table caption="Evaluation runs" columns={columns} rows={items} rowKey={(r) => r.id} />
      <ListFooter list={runs} />
    </>
  );
}

/** The run's status and progress, followed while it runs. */
function RowState(props: { run: Run }) {
  const { progress } = useProgress(props.run.id, 2000);
  return (
    <span class="ev-state">
      <StatusBadge status={progress?.status ?? props.run.status} />
      <ProgressSummary progress={progress} compact />
    </span>
  );
}
