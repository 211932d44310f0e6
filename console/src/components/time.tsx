/**
 * One formatter for every timestamp: building one per call (as `toLocaleString` with options does) costs more
 * than the formatting itself.
 */
let format: Intl.DateTimeFormat | undefined;

/** A timestamp as a short local date and time, the exact value in the tooltip. */
export function Time(props: { value: string | null | undefined }) {
  if (!props.value) return <span class="muted">—</span>;
  format ??= new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
  return <time dateTime={props.value} title={props.value}>{format.format(new Date(props.value))}</time>;
}
