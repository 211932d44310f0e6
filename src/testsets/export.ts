import { Readable } from "node:stream";
import { stringify } from "csv-stringify";
import type { Queryable } from "../db/database.ts";
import { fromJsonbString } from "../db/jsonb-text.ts";
import { idPages, type StoredIds } from "./chunk-lists.ts";
import { ColumnCounts } from "./columns.ts";
import type { FileType } from "./import.ts";
import { loadTestcases, type TestcaseRow } from "./testcases.ts";

const META = ["__flags__", "__tags__", "__meta__"] as const;
const FIELD = { __flags__: "flags", __tags__: "tags", __meta__: "meta" } as const;
const filled = (v: Record<string, unknown> | null) => !!v && Object.keys(v).length > 0;

/** The revision's rows a page at a time; the next page is read while the caller writes this one. */
async function* pages(db: Queryable, projectId: string, stored: StoredIds | null): AsyncGenerator<TestcaseRow[]> {
  let ahead: Promise<TestcaseRow[]> | null = null;
  try {
    for await (const ids of idPages(db, projectId, stored)) {
      const next = loadTestcases(db, projectId, ids);
      next.catch(() => {}); // awaited below; a failure must not go unhandled while it waits its turn
      if (ahead) yield await ahead;
      ahead = next;
    }
    if (ahead) yield await ahead;
  } finally {
    await ahead?.catch(() => {});
  }
}

// The order jsonb keeps an object's keys in (shorter first, then by bytes): the order a pass over
// rows that all hold the same columns meets them in.
const jsonbKeyOrder = (a: string, b: string) => Buffer.byteLength(a) - Buffer.byteLength(b) || Buffer.compare(Buffer.from(a), Buffer.from(b));

/**
 * The CSV's data columns and the metadata columns any row fills. A revision that counts its columns
 * names them; whether a row of the testset holds flags, tags or meta is one pass over its rows in the
 * database. Otherwise the revision's rows are read once for their keys.
 */
async function csvColumns(db: Queryable, projectId: string, testsetId: string, stored: StoredIds | null): Promise<{ keys: string[]; meta: string[] }> {
  if (stored?.columns) {
    const [found] = await db.query<Record<(typeof META)[number], boolean | null>>(
      `SELECT bool_or(flags <> '{}') AS __flags__, bool_or(tags <> '{}') AS __tags__, bool_or(meta <> '{}') AS __meta__
       FROM testcases WHERE project_id = $1 AND testset_id = $2`,
      [projectId, testsetId],
    );
    // In the revision's column order when it keeps one; else sorted as the rows' jsonb holds them.
    const keys = stored.column_order
      ? new ColumnCounts(stored).names()
      : Object.keys(stored.columns).sort(jsonbKeyOrder).map(fromJsonbString);
    return { keys, meta: META.filter((c) => found?.[c]) };
  }
  const keys = new Set<string>();
  const meta = new Set<string>();
  for await (const rows of pages(db, projectId, stored)) {
    for (const row of rows) {
      for (const k of Object.keys(row.data)) if (k !== "testcase_dedup_id") keys.add(k);
      for (const column of META) if (filled(row[FIELD[column]])) meta.add(column);
    }
  }
  return { keys: [...keys], meta: META.filter((c) => meta.has(c)) };
}

/**
 * A row as the import reads it back: data columns (in `order` first, when the revision keeps one), `__id__`,
 * and the metadata columns that hold something.
 */
function exportRow(row: TestcaseRow, meta: readonly string[], order: readonly string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of order) if (name in row.data) out[name] = row.data[name];
  Object.assign(out, row.data, { __id__: row.id });
  for (const column of meta) {
    const value = row[FIELD[column as keyof typeof FIELD]];
    if (filled(value)) out[column] = value;
  }
  return out;
}

// Text a spreadsheet would run as a formula (OWASP "CSV injection"): it gets a leading single quote.
const FORMULA_START = /^[=+\-@\t\r]/;
const escapeFormula = (text: string) => (FORMULA_START.test(text) ? `'${text}` : text);

/** Download options: `escapeFormulas` prefixes formula-looking CSV cells (and column names) with `'`. */
export interface ExportOptions {
  escapeFormulas?: boolean;
}

/**
 * The revision's testcases as a file, streamed page by page. CSV needs its columns first: from the
 * revision's column counts when it has them, else from a first pass over the rows (keys only are
 * kept) rather than holding them.
 */
export async function exportRevision(
  db: Queryable, projectId: string, testsetId: string, data: StoredIds | null, fileType: FileType,
  options: ExportOptions = {},
): Promise<Readable> {
  const order = data?.column_order ? new ColumnCounts(data).names() : [];
  if (fileType === "jsonl") {
    return Readable.from((async function* () {
      for await (const rows of pages(db, projectId, data)) {
        yield rows.map((row) => JSON.stringify(exportRow(row, META, order)) + "\n").join("");
      }
    })());
  }
  if (fileType === "json") {
    return Readable.from((async function* () {
      let first = true;
      yield "[";
      for await (const rows of pages(db, projectId, data)) {
        for (const row of rows) {
          yield (first ? "\n" : ",\n") + JSON.stringify(exportRow(row, META, order));
          first = false;
        }
      }
      yield "\n]\n";
    })());
  }
  const { keys, meta } = await csvColumns(db, projectId, testsetId, data);
  const columns = [...keys, "testcase_dedup_id", "__id__", ...meta];
  const text = (v: unknown) => (v === undefined || v === null ? "" : typeof v === "string" ? v : JSON.stringify(v));
  // Numbers stay as they are: a negative number is no formula.
  const cell = options.escapeFormulas
    ? (v: unknown) => (typeof v === "number" ? text(v) : escapeFormula(text(v)))
    : text;
  const records = Readable.from((async function* () {
    yield options.escapeFormulas ? columns.map(escapeFormula) : columns;
    for await (const rows of pages(db, projectId, data)) {
      for (const row of rows) {
        const r = exportRow(row, meta);
        yield columns.map((c) => cell(r[c]));
      }
    }
  })());
  return records.pipe(stringify());
}
