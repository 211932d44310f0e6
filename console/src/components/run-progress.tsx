import { useEffect, useState } from "preact/hooks";
import { messageOf } from "../api.ts";
import { fetchProgress, TERMINAL, type Progress } from "../evaluations.ts";

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

/** A run's status as a coloured badge. */
export function StatusBadge(props: { status: string }) {
  return <span class={`badge ev-status ev-status-${props.status}`}>{props.status}</span>;
}
