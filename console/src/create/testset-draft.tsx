import { useState } from "preact/hooks";

/** An empty grid: named columns and the rows typed under them, committed as the testset's first revision. */
export interface GridDraft {
  columns: string[];
  rows: string[][];
}

/** The testcases of a grid draft (blank rows left out), or why it cannot be created. */
export function testcasesOf(draft: GridDraft): { testcases?: { data: Record<string, string> }[]; error?: string } {
  if (draft.columns.length === 0) return { error: "Add at least one column." };
  const rows = draft.rows.filter((row) => row.some((cell) => cell.trim() !== ""));
  if (rows.length === 0) return { error: "Fill in at least one row: a testset holds its columns through its rows." };
  const dataOf = (row: string[]) => Object.fromEntries(draft.columns.map((c, i) => [c, row[i] ?? ""]));
  return { testcases: rows.map((row) => ({ data: dataOf(row) })) };
}

/** The grid: a column name box with "Add column", a table of inputs, "Add row". */
export function GridDraftEditor(props: { draft: GridDraft; onChange: (d: GridDraft) => void }) {
  const { draft } = props;
  const [column, setColumn] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const addColumn = (event: Event) => {
    event.preventDefault();
    const name = column.trim();
    if (!name) return;
    if (draft.columns.includes(name)) return setProblem(`There is already a column named ${name}.`);
    setProblem(null);
    setColumn("");
    props.onChange({ columns: [...draft.columns, name], rows: draft.rows.map((r) => [...r, ""]) });
  };
  const setCell = (r: number, c: number, value: string) =>
    props.onChange({
      ...draft,
      rows: draft.rows.map((row, i) => (i === r ? row.map((v, j) => (j === c ? value : v)) : row)),
    });
  const removeColumn = (c: number) =>
    props.onChange({
      columns: draft.columns.filter((_, j) => j !== c),
      rows: draft.rows.map((row) => row.filter((_, j) => j !== c)),
    });
  return (
    <div class="create-grid">
      <div class="tg-inline">
        <label for="grid-new-column">Column name</label>
        <input id="grid-new-column" placeholder="question" value={column}
          onInput={(e) => setColumn(e.currentTarget.value)}
          onKeyDown={(e) => e.key === "Enter" && addColumn(e)} />
        <button type="button" onClick={addColumn}>Add column</button>
      </div>
      {problem && <p class="field-error">{problem}</p>}
      {draft.columns.length > 0 && (
        <div class="table-scroll">
          <table class="create-grid-table">
            <thead>
              <tr>
                <th scope="col">#</th>
                {draft.columns.map((c, j) => (
                  <th scope="col">{c} <button type="button" class="button-small" aria-label={`Remove column ${c}`}
                    onClick={() => removeColumn(j)}>×</button></th>
                ))}
              </tr>
            </thead>
            <tbody>
              {draft.rows.map((row, i) => (
                <tr>
                  <th scope="row">{i + 1}</th>
                  {draft.columns.map((c, j) => (
                    <td><input aria-label={`Row ${i + 1}, ${c}`} value={row[j] ?? ""}
                      onInput={(e) => setCell(i, j, e.currentTarget.value)} /></td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {draft.columns.length > 0 && (
        <button type="button"
          onClick={() => props.onChange({ ...draft, rows: [...draft.rows, draft.columns.map(() => "")] })}>
          Add row
        </button>
      )}
    </div>
  );
}
