/**
 * What the user changed in the grid before committing: edited rows (by testcase id: a row the revision
 * holds twice is edited in both places, as a delta's `replace` does), removed rows, added rows, added,
 * renamed and removed columns. `delta()` writes them as the testset delta the API and the CLI commit
 * (`rows.add/remove/replace`, `columns.add/remove/replace`); the server applies rows first, so ids are the
 * base revision's, then renames, removals and additions.
 */
export const HIDDEN_COLUMNS = new Set(["testcase_dedup_id"]);

export interface Edits {
  replaced: Map<string, Record<string, unknown>>;
  removed: Set<string>;
  added: Record<string, unknown>[];
  addedColumns: string[];
  removedColumns: Set<string>;
  /** Stored columns renamed: stored name → new name (a column renamed twice keeps one entry). */
  renamedColumns: Map<string, string>;
}

export const noEdits = (): Edits => ({
  replaced: new Map(), removed: new Set(), added: [],
  addedColumns: [], removedColumns: new Set(), renamedColumns: new Map(),
});

export const editCount = (e: Edits): number =>
  e.replaced.size + e.removed.size + e.added.length
  + e.addedColumns.length + e.removedColumns.size + e.renamedColumns.size;

/** A row's data as the grid shows it: renamed columns under their new names. */
export function renamedData(e: Edits, data: Record<string, unknown>): Record<string, unknown> {
  if (!e.renamedColumns.size) return data;
  const out = { ...data };
  for (const [from, to] of e.renamedColumns) {
    if (from in out) {
      out[to] = out[from];
      delete out[from];
    }
  }
  return out;
}

/**
 * The edits with column `from` (as shown now) named `to`: an added column is renamed in place, a stored one
 * recorded.
 */
export function renameColumn(e: Edits, from: string, to: string): Edits {
  if (e.addedColumns.includes(from)) {
    // Only this session's rows hold an added column: its cells move to the new name.
    const moved = (data: Record<string, unknown>) => renamedData({ ...e, renamedColumns: new Map([[from, to]]) }, data);
    return {
      ...e,
      addedColumns: e.addedColumns.map((c) => (c === from ? to : c)),
      added: e.added.map(moved),
      replaced: new Map([...e.replaced].map(([id, data]) => [id, moved(data)])),
    };
  }
  const renamedColumns = new Map(e.renamedColumns);
  const stored = [...renamedColumns].find(([, shown]) => shown === from)?.[0] ?? from;
  if (stored === to) renamedColumns.delete(stored);
  else renamedColumns.set(stored, to);
  return { ...e, renamedColumns };
}

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
  if (e.renamedColumns.size) columns.replace = [...e.renamedColumns];
  return { ...(Object.keys(rows).length ? { rows } : {}), ...(Object.keys(columns).length ? { columns } : {}) };
}
