import { useEffect, useState } from "preact/hooks";
import { api, messageOf, useApi } from "../api.ts";
import { EmptyState } from "../components/empty-state.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { IdChip } from "../components/id-chip.tsx";
import { Link } from "../components/link.tsx";
import { Loading } from "../components/loading.tsx";
import { ProgressSummary, StatusBadge, useProgress } from "../components/run-progress.tsx";
import { Time } from "../components/time.tsx";
import { fetchRun, fetchRunMetrics, isActive, pinned, stepsOf, TERMINAL, type Run } from "../evaluations.ts";
import type { ViewProps } from "../router.ts";
import { CompareWith } from "./evaluation-compare-with.tsx";
import { RunMetrics } from "./evaluation-metrics.tsx";
import { ScenarioTable } from "./evaluation-scenarios.tsx";

/** `/evaluations/{id}`: a run's pinned revisions, its live progress, its metrics per step and its scenarios. */
export function EvaluationRunPage({ params }: ViewProps) {
  const runId = params.id;
  const loaded = useApi(async (signal) => {
    const [run, metrics] = await Promise.all([fetchRun(runId, signal), fetchRunMetrics(runId, signal)]);
    return { run, metrics };
  }, [runId]);
  // When the run ends, its final metrics and results are read again.
  const live = useProgress(runId, 1000, loaded.reload);
  const [acting, setActing] = useState(false);
  const [actionError, setActionError] = useState<string | null>(null);
  useEffect(() => setActionError(null), [runId]);

  if (loaded.error && !loaded.data) {
    return (
      <>
        <p class="crumbs"><Link href="/evaluations">Evaluations</Link></p>
        <ErrorBanner message={loaded.error} onRetry={loaded.reload} />
      </>
    );
  }
  if (!loaded.data) return <Loading />;
  const { run, metrics } = loaded.data;
  const status = live.progress?.status ?? run.status;
  const active = isActive({ status, flags: TERMINAL.includes(status) ? { ...run.flags, is_active: false } : run.flags });
  const closed = !!run.flags?.is_closed;

  const act = async (path: string) => {
    setActing(true);
    setActionError(null);
    try {
      await api("POST", path);
      loaded.reload();
    } catch (e) {
      setActionError(messageOf(e));
    } finally {
      setActing(false);
    }
  };
  const title = run.name || `Run …${run.id.slice(-8)}`;
  const pins = (type: "input" | "invocation" | "annotation") => {
    const steps = stepsOf(run, type);
    return steps.length ? steps.map((s) => <code class="ev-pin">{pinned(s)}</code>) : <span class="muted">none</span>;
  };
  return (
    <>
      <p class="crumbs"><Link href="/evaluations">Evaluations</Link> / {title}</p>
      <h1>
        {title}
        <StatusBadge status={status} />
        {closed && <span class="badge">closed</span>}
      </h1>
      <dl class="facts">
        <dt>Progress</dt><dd><ProgressSummary progress={live.progress} /></dd>
        <dt>Testset</dt><dd>{pins("input")}</dd>
        <dt>Application</dt><dd>{pins("invocation")}</dd>
        <dt>Evaluators</dt><dd>{pins("annotation")}</dd>
        <dt>Repeats</dt><dd>{run.data?.repeats ?? 1}{run.flags?.is_cached ? ", reusing earlier results" : ""}</dd>
        <dt>Created</dt><dd><Time value={run.created_at} /></dd>
        <dt>ID</dt><dd><IdChip id={run.id} label="run id" /></dd>
      </dl>
      <ErrorBanner message={live.error} />
      <div class="ev-actions">
        {active && <button type="button" disabled={acting} onClick={() => act(`/simple/evaluations/${run.id}/stop`)}>Stop</button>}
        {!active && !closed && <button type="button" disabled={acting} onClick={() => act(`/simple/evaluations/${run.id}/close`)}>Close</button>}
        {closed && <button type="button" disabled={acting} onClick={() => act(`/simple/evaluations/${run.id}/open`)}>Reopen</button>}
        <CompareWith run={run} />
      </div>
      <ErrorBanner message={actionError} />
      <h2>Metrics</h2>
      <RunMetrics run={run} metrics={metrics} running={active} />
      <h2>Scenarios</h2>
      {live.progress && live.progress.scenarios === 0 && active ? (
        <EmptyState title="No scenarios yet"><p>The run is being planned.</p></EmptyState>
      ) : (
        <ScenarioTable run={run} refresh={`${status} ${live.progress?.done ?? 0}`} />
      )}
    </>
  );
}


