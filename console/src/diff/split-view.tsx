import { diffLines, type DiffLine } from "./lines.ts";

interface Row {
  left?: DiffLine;
  right?: DiffLine;
}

/** Lines side by side: kept lines on both sides, a run of removals paired with the additions that follow it. */
function pairRows(lines: DiffLine[]): Row[] {
  const rows: Row[] = [];
  for (let i = 0; i < lines.length;) {
    if (lines[i].op === "same") {
      rows.push({ left: lines[i], right: lines[i] });
      i++;
      continue;
    }
    const removed: DiffLine[] = [];
    const added: DiffLine[] = [];
    while (i < lines.length && lines[i].op === "removed") removed.push(lines[i++]);
    while (i < lines.length && lines[i].op === "added") added.push(lines[i++]);
    for (let j = 0; j < Math.max(removed.length, added.length); j++) rows.push({ left: removed[j], right: added[j] });
  }
  return rows;
}

function Cell(props: { line?: DiffLine; side: "left" | "right" }) {
  const { line } = props;
  if (!line) return <><td class="diff-num" /><td class="diff-text diff-empty" /></>;
  const changed = line.op !== "same";
  const cls = line.op === "removed" ? "diff-removed" : line.op === "added" ? "diff-added" : "";
  return (
    <>
      <td class={`diff-num ${cls}`}>{props.side === "left" ? line.before : line.after}</td>
      <td class={`diff-text ${cls}`}>
        {changed && <span class="visually-hidden">{line.op === "removed" ? "Removed: " : "Added: "}</span>}
        {line.text || " "}
      </td>
    </>
  );
}

/** Two texts side by side, changed lines highlighted (removed on the left, added on the right). */
export function SplitDiff(props: { before: string; after: string; beforeTitle: string; afterTitle: string; caption: string }) {
  const lines = diffLines(props.before, props.after);
  if (!lines.some((l) => l.op !== "same")) return <p class="muted">No change.</p>;
  return (
    <div class="table-wrap">
      <table class="split-diff">
        <caption class="visually-hidden">{props.caption}</caption>
        <colgroup><col class="diff-num-col" /><col /><col class="diff-num-col" /><col /></colgroup>
        <thead><tr><th colSpan={2} scope="col">{props.beforeTitle}</th><th colSpan={2} scope="col">{props.afterTitle}</th></tr></thead>
        <tbody>
          {pairRows(lines).map((row) => <tr><Cell line={row.left} side="left" /><Cell line={row.right} side="right" /></tr>)}
        </tbody>
      </table>
    </div>
  );
}
