/** A quiet "Loading…" line, announced to screen readers. */
export function Loading(props: { label?: string }) {
  return <p class="loading" role="status" aria-live="polite">{props.label ?? "Loading…"}</p>;
}
