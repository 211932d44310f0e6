/** A timestamp as a short local date and time, the exact value in the tooltip. */
export function Time(props: { value: string | null | undefined }) {
  if (!props.value) return <span class="muted">—</span>;
  const date = new Date(props.value);
  const text = date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
  return <time dateTime={props.value} title={props.value}>{text}</time>;
}
