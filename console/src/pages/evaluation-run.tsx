import { useEffect, useRef, useState } from "preact/hooks";
import { api, messageOf, useApi } from "../api.ts";
import { EmptyState } from "../components/empty-state.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { IdChip } from "../components/id-chip.tsx";
import { Link } from "../components/link.tsx";
import { Loading } from "../components/loading.tsx";
import { ProgressSummary, StatusBadge, useEta, useProgress } from "../components/run-progress.tsx";
import { Time } from "../components/time.tsx";
import {
  fetchRun, fetchRunMetrics, isActive, mainScores, outcomeOf, pinned, refreshRunMetrics, stepsOf, TERMINAL, type Run,
  type RunMetricsData,
} from "../evaluations.ts";
import { setQuery, type ViewProps } from "../router.ts";
import { TracePanel } from "./trace-panel.tsx";
import { CompareWith } from "./evaluation-compare-with.tsx";
import { AnnotateRun } from "./evaluation-annotate.tsx";
import { RunMetrics } from "./evaluation-metrics.tsx";
import { ScenarioTable } from "./evaluation-scenarios.tsx";

/** `/evaluations/{id}`: a run's pinned revisions, its live progress, its metrics per step and its scenarios. */
export function EvaluationRunPage({ params, query }: ViewProps) {
  const runId = params.id;
  const loaded = useApi(async (signal) => {
    const [run, metrics] = await Promise.all([fetchRun(runId, signal), fetchRunMetrics(runId, signal)]);
    return { run, metrics };
  }, [runId]);
  const recounted = useRef(false);
  // When the run ends, its final metrics and results are read again. A recount this page asked for while the run
  // went on may have read the results just before the last ones and stored its sums after the run's final ones:
  // this page then recounts once more, with every result in.
  const live = useProgress(runId, 1000, () => {
    if (!recounted.current) return loaded.reload();
    recounted.current = false;
    refreshRunMetrics(runId).then(loaded.reload, loaded.reload);
  });
  const [acting, setActing] = useState(false);
  const [actionError, setActionError] = useState<string | null>(null);
  useEffect(() => setActionError(null), [runId]);
  const eta = useEta(live.progress);
  const running = !!live.progress && !TERMINAL.includes(live.progress.status);
  const sofar = useLiveMetrics(runId, running, live.progress?.done ?? 0, recounted);
  const traceId = query.get("trace");

  if (loaded.error && !loaded.data) {
    return (
      <>
        <p class="crumbs"><Link href="/evaluations">Evaluations</Link></p>
        <ErrorBanner message={loaded.error} onRetry={loaded.reload} />
      </>
    );
  }
  if (!loaded.data) return <Loading />;
  const { run } = loaded.data;
  const metrics = running && sofar ? sofar : loaded.data.metrics;
  const status = live.progress?.status ?? run.status;
  const active = isActive({ status, flags: TERMINAL.includes(status) ? { ...run.flags, is_active: false } : run.flags });
  const closed = !!run.flags?.is_closed;
  const outcome = outcomeOf(status, mainScores(run, metrics), live.progress?.failed ?? 0);

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
        <StatusBadge status={status} outcome={outcome} />
        {closed && <span class="badge">closed</span>}
      </h1>
      <dl class="facts">
        <dt>Progress</dt><dd><ProgressSummary progress={live.progress} /></dd>
        {eta && <><dt>Time left</dt><dd>{eta}</dd></>}
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
        <AnnotateRun run={run} />
      </div>
      <ErrorBanner message={actionError} />
      <h2>Metrics</h2>
      <RunMetrics run={run} metrics={metrics} running={active} />
      <h2>Scenarios</h2>
      {live.progress && live.progress.scenarios === 0 && active ? (
        <EmptyState title="No scenarios yet"><p>The run is being planned.</p></EmptyState>
      ) : (
        <ScenarioTable
          run={run}
          refresh={`${status} ${live.progress?.done ?? 0}`}
          failedOnly={query.get("show") === "failed"}
          onFailedOnly={(on) => setQuery({ show: on ? "failed" : null })}
          onOpenTrace={(id) => setQuery({ trace: id }, { replace: false })}
        />
      )}
      {traceId && (
        <dialog class="ev-trace" open aria-label="Scenario trace">
          <div class="ev-trace-head">
            <h2>Trace <code>{traceId.slice(0, 12)}…</code></h2>
            <button type="button" onClick={() => setQuery({ trace: null })}>Close trace</button>
          </div>
          <TracePanel traceId={traceId} />
        </dialog>
      )}
    </>
  );
}

/** While a run goes on, its metrics so far, recomputed on the server each time more scenarios are done. */
function useLiveMetrics(
  runId: string, running: boolean, done: number, recounted: { current: boolean },
): RunMetricsData | null {
  const [metrics, setMetrics] = useState<RunMetricsData | null>(null);
  useEffect(() => setMetrics(null), [runId]);
  useEffect(() => {
    if (!running || done === 0) return;
    const controller = new AbortController();
    recounted.current = true;
    refreshRunMetrics(runId, controller.signal).then(setMetrics, () => {
      // A failed recount leaves the last one shown; the run's end reads its final metrics anyway.
    });
    return () => controller.abort();
  }, [runId, running, done]);
  return metrics;
}
