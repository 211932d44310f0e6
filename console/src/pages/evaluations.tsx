import { EmptyState } from "../components/empty-state.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Link } from "../components/link.tsx";
import { ListFooter } from "../components/list-footer.tsx";
import { Loading } from "../components/loading.tsx";
import { ProgressSummary, StatusBadge, useProgress } from "../components/run-progress.tsx";
import { Table, type Column } from "../components/table.tsx";
import { Time } from "../components/time.tsx";
import { useApi } from "../api.ts";
import {
  fetchManyRunMetrics, mainScores, outcomeOf, pinned, queryRuns, scoreText, STATUSES, stepsOf, type Run, type Score,
} from "../evaluations.ts";
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
  const ids = items.map((r) => r.id).join(",");
  // One call for the metrics of every run listed; a run still going gets its scores when it ends.
  const metrics = useApi((signal) => fetchManyRunMetrics(ids ? ids.split(",") : [], signal), [ids]);
  const scoresOf = (run: Run) => mainScores(run, metrics.data?.get(run.id) ?? {});

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
    { title: "Status", cell: (r) => <RowState run={r} scores={scoresOf(r)} onEnd={metrics.reload} /> },
    { title: "Scores", cell: (r) => <Scores scores={scoresOf(r)} /> },
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

/** A run's pass rates and mean scores: `exact success 66.7%`. */
function Scores(props: { scores: Score[] }) {
  if (props.scores.length === 0) return <span class="muted">—</span>;
  return (
    <span class="ev-scores">
      {props.scores.map((s) => (
        <span title={`${s.kind === "pass" ? "pass rate" : "mean"} over ${s.count}`}>
          {s.label} <strong class={s.kind === "pass" && s.value === 0 ? "ev-score-low" : ""}>{scoreText(s)}</strong>
        </span>
      ))}
    </span>
  );
}

/** The run's status (its outcome once it has ended) and progress, followed while it runs. */
function RowState(props: { run: Run; scores: Score[]; onEnd: () => void }) {
  const { progress } = useProgress(props.run.id, 2000, props.onEnd);
  const status = progress?.status ?? props.run.status;
  return (
    <span class="ev-state">
      <StatusBadge status={status} outcome={outcomeOf(status, props.scores, progress?.failed ?? 0)} />
      <ProgressSummary progress={progress} compact />
    </span>
  );
}
