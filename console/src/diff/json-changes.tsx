import { diffJson, type JsonChange } from "./json.ts";

const show = (value: unknown) => (value === undefined ? "" : JSON.stringify(value, null, 1));

/** The paths that differ between two JSON values, each added, removed or changed, with its values. */
export function JsonChanges(props: { before: unknown; after: unknown; caption: string; skip?: (path: string) => boolean }) {
  const changes = diffJson(props.before, props.after).filter((c) => !props.skip?.(c.path));
  if (changes.length === 0) return <p class="muted">No change.</p>;
  return (
    <div class="table-wrap">
      <table class="json-diff">
        <caption class="visually-hidden">{props.caption}</caption>
        <thead><tr><th scope="col">Path</th><th scope="col">Change</th><th scope="col">Before</th><th scope="col">After</th></tr></thead>
        <tbody>
          {changes.map((c: JsonChange) => (
            <tr class={`diff-${c.op}`} key={c.path}>
              <td><code>{c.path}</code></td>
              <td>{c.op}</td>
              <td><pre class="diff-value">{c.op === "added" ? "" : show(c.from)}</pre></td>
              <td><pre class="diff-value">{c.op === "removed" ? "" : show(c.to)}</pre></td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
