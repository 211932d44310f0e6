import { useEffect, useState } from "preact/hooks";
import { messageOf } from "../api.ts";
import { durationText, etaSeconds, fetchProgress, TERMINAL, type Progress, type Sample } from "../evaluations.ts";

/**
 * A run's progress, asked again every `every` ms while the run is not over (and once more when it ends,
 * so the counts are final); `onEnd` is called when a run seen in progress reaches a final status.
 */
export function useProgress(runId: string, every: number, onEnd?: (progress: Progress) => void) {
  const [progress, setProgress] = useState<Progress | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let sawActive = false;
    const poll = async () => {
      try {
        const p = await fetchProgress(runId, controller.signal);
        if (controller.signal.aborted) return;
        setProgress(p);
        setError(null);
        const over = !p || TERMINAL.includes(p.status);
        if (!over) {
          sawActive = true;
          timer = setTimeout(poll, every);
        } else if (sawActive && p) onEnd?.(p);
      } catch (e) {
        if (controller.signal.aborted) return;
        setError(messageOf(e));
        timer = setTimeout(poll, every * 4);
      }
    };
    void poll();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [runId, every]);
  return { progress, error };
}

/** `12 / 40 done` with a bar, and what failed or was reused. */
export function ProgressSummary(props: { progress: Progress | null; compact?: boolean }) {
  const p = props.progress;
  if (!p) return <span class="muted">—</span>;
  const label = `${p.done} / ${p.scenarios} scenarios done`;
  return (
    <span class={props.compact ? "ev-progress ev-progress-compact" : "ev-progress"}>
      <progress max={Math.max(p.scenarios, 1)} value={p.done} aria-label={label} />
      <span>{p.done}/{p.scenarios}</span>
      {p.failed > 0 && <span class="ev-failed">{p.failed} failed</span>}
      {!props.compact && (
        <span class="muted">
          {p.succeeded} succeeded, {p.pending} pending · cells: {p.cells.invoked} invoked, {p.cells.reused} reused, {p.cells.failed} failed
        </span>
      )}
    </span>
  );
}

/** A run's status as a coloured badge; `outcome` (from `outcomeOf`) overrides its words and colour. */
export function StatusBadge(props: { status: string; outcome?: { label: string; tone: string } }) {
  const { label, tone } = props.outcome ?? { label: props.status, tone: props.status };
  const title = label === props.status ? undefined : `status ${props.status}`;
  return <span class={`badge ev-status ev-status-${tone}`} title={title}>{label}</span>;
}

/** The time a running run has left at its pace so far (`about 40 s left`), from the progress seen by this page. */
export function useEta(progress: Progress | null): string | null {
  const [first, setFirst] = useState<Sample | null>(null);
  const p = progress;
  useEffect(() => {
    if (p && !TERMINAL.includes(p.status) && !first) setFirst({ at: Date.now(), done: p.done });
  }, [p, first]);
  if (!p || TERMINAL.includes(p.status) || !first) return null;
  const left = etaSeconds(first, { at: Date.now(), done: p.done }, p.scenarios);
  return left === null ? "estimating…" : `about ${durationText(left)} left`;
}
