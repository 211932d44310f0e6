import { formatCount } from "./virtual-grid.tsx";
import type { UploadState } from "./transfer.ts";

/**
 * An upload's progress in one bar: the bytes sent (the server parses the rows as they come), then the rows the
 * server has stored out of the file's rows, then the commit of the revision.
 */
export function UploadStatus(props: { state: UploadState }) {
  const { sent, total, rows, stored, committing } = props.state;
  const sentAll = total > 0 && sent >= total;
  let value: number | undefined;
  let text: string;
  if (committing) {
    value = undefined;
    text = `Stored ${formatCount(rows ?? 0)} rows; committing the revision…`;
  } else if (rows !== undefined) {
    value = rows ? Math.round((100 * (stored ?? 0)) / rows) : 100;
    text = `Storing rows: ${formatCount(stored ?? 0)} of ${formatCount(rows)}`;
  } else if (sentAll) {
    value = undefined;
    text = "Sent; the server is reading the rows…";
  } else {
    value = total ? Math.round((100 * sent) / total) : 0;
    text = `${value}% sent`;
  }
  return (
    <span class="tg-inline" role="status">
      <progress max={100} value={value} aria-label="Upload progress">{value ?? ""}%</progress>
      <span>{text}</span>
    </span>
  );
}
