import type { ComponentChildren } from "preact";

export interface Column<T> {
  /** The header: a word, or a control (a checkbox that selects every row). */
  title: ComponentChildren;
  /** The cell. */
  cell: (row: T) => ComponentChildren;
  /** Hidden on phone-width screens. */
  wide?: boolean;
}

/** A table of rows with a caption (for screen readers) that scrolls sideways when too wide. */
export function Table<T>(props: { caption: string; columns: Column<T>[]; rows: T[]; rowKey: (row: T) => string }) {
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>{props.columns.map((c) => <th scope="col" class={c.wide ? "wide" : undefined}>{c.title}</th>)}</tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr key={props.rowKey(row)}>{props.columns.map((c) => <td class={c.wide ? "wide" : undefined}>{c.cell(row)}</td>)}</tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
