/** A testset diff as the server works it out (`POST /testsets/revisions/diff`): rows added, removed and changed, columns. */
interface Row {
  id: string;
  data?: Record<string, unknown> | null;
}
interface Changed {
  id: string;
  new_id?: string;
  fields: Record<string, { from: unknown; to: unknown }>;
}
export interface TestsetDiffData {
  counts: { base: number; target: number; added: number; removed: number; changed: number };
  testcases: { added: Row[]; removed: Row[]; changed: Changed[] };
  columns: { added: string[]; removed: string[] };
  truncated: boolean;
}

const cell = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));
const visible = (data: Record<string, unknown> | null | undefined) =>
  Object.entries(data ?? {}).filter(([k]) => k !== "testcase_dedup_id").map(([k, v]) => `${k}: ${cell(v)}`).join(" · ");

function RowList(props: { title: string; rows: Row[]; op: "added" | "removed" }) {
  if (props.rows.length === 0) return null;
  return (
    <>
      <h4>{props.title}</h4>
      <ul class={`testset-rows diff-${props.op}`} aria-label={props.title}>
        {props.rows.map((r) => <li key={r.id}><span class="diff-sign" aria-hidden="true">{props.op === "added" ? "+" : "−"}</span>{visible(r.data)}</li>)}
      </ul>
    </>
  );
}

export function TestsetRowsDiff(props: { diff: TestsetDiffData }) {
  const { counts, testcases, columns, truncated } = props.diff;
  return (
    <>
      <h3>Rows</h3>
      <p class="diff-counts">
        {counts.base} → {counts.target} rows: <strong class="count-added">{counts.added} added</strong>,{" "}
        <strong class="count-removed">{counts.removed} removed</strong>, <strong class="count-changed">{counts.changed} changed</strong>
        {truncated && <span class="muted"> (lists cut short; the counts are exact)</span>}
      </p>
      {(columns.added.length > 0 || columns.removed.length > 0) && (
        <p>
          Columns: {columns.added.map((c) => <span class="badge diff-added">+ {c}</span>)}
          {columns.removed.map((c) => <span class="badge diff-removed">− {c}</span>)}
        </p>
      )}
      <RowList title="Added rows" rows={testcases.added} op="added" />
      <RowList title="Removed rows" rows={testcases.removed} op="removed" />
      {testcases.changed.length > 0 && (
        <>
          <h4>Changed rows</h4>
          <div class="table-wrap">
            <table class="json-diff">
              <caption class="visually-hidden">Changed rows</caption>
              <thead><tr><th scope="col">Row</th><th scope="col">Column</th><th scope="col">Before</th><th scope="col">After</th></tr></thead>
              <tbody>
                {testcases.changed.flatMap((c) => Object.entries(c.fields).map(([column, { from, to }]) => (
                  <tr class="diff-changed"><td><code>…{c.id.slice(-8)}</code></td><td>{column}</td><td>{cell(from)}</td><td>{cell(to)}</td></tr>
                )))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </>
  );
}
