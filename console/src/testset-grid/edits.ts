/**
 * What the user changed in the grid before committing: edited rows (by testcase id: a row the revision
 * holds twice is edited in both places, as a delta's `replace` does), removed rows, added rows, added
 * and removed columns. `delta()` writes them as the testset delta the API and the CLI commit
 * (`rows.add/remove/replace`, `columns.add/remove`); the server applies rows first, so ids are the
 * base revision's.
 */
export const HIDDEN_COLUMNS = new Set(["testcase_dedup_id"]);

export interface Edits {
  replaced: Map<string, Record<string, unknown>>;
  removed: Set<string>;
  added: Record<string, unknown>[];
  addedColumns: string[];
  removedColumns: Set<string>;
}

export const noEdits = (): Edits => ({ replaced: new Map(), removed: new Set(), added: [], addedColumns: [], removedColumns: new Set() });

export const editCount = (e: Edits): number =>
  e.replaced.size + e.removed.size + e.added.length + e.addedColumns.length + e.removedColumns.size;

/** A cell as text in an input: strings as they are, other JSON values written as JSON, null as empty. */
export function cellText(value: unknown): string {
  if (value === undefined || value === null) return "";
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** Text typed into a cell that held `before`: kept a string, unless `before` was another JSON value and the text parses. */
export function cellValue(text: string, before: unknown): unknown {
  if (typeof before === "string" || before === undefined || before === null) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Column names in the order rows first show them, hidden bookkeeping columns left out. */
export function columnsOf(rows: Iterable<Record<string, unknown>>, known: string[] = []): string[] {
  const seen = new Set(known);
  const out = [...known];
  for (const data of rows) {
    for (const name of Object.keys(data)) {
      if (!seen.has(name) && !HIDDEN_COLUMNS.has(name)) {
        seen.add(name);
        out.push(name);
      }
    }
  }
  return out;
}

/** The testset delta for these edits. */
export function delta(e: Edits) {
  const rows: Record<string, unknown> = {};
  if (e.replaced.size) rows.replace = [...e.replaced].filter(([id]) => !e.removed.has(id)).map(([id, data]) => ({ id, data }));
  if (e.removed.size) rows.remove = [...e.removed];
  if (e.added.length) rows.add = e.added.map((data) => ({ data }));
  const columns: Record<string, unknown> = {};
  if (e.addedColumns.length) columns.add = e.addedColumns;
  if (e.removedColumns.size) columns.remove = [...e.removedColumns];
  return { ...(Object.keys(rows).length ? { rows } : {}), ...(Object.keys(columns).length ? { columns } : {}) };
}
