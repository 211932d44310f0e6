import { Readable } from "node:stream";
import { stringify } from "csv-stringify";
import type { Queryable } from "../db/database.ts";
import { idPages, type StoredIds } from "./chunk-lists.ts";
import type { FileType } from "./import.ts";
import { loadTestcases, type TestcaseRow } from "./testcases.ts";

const META = ["__flags__", "__tags__", "__meta__"] as const;
const FIELD = { __flags__: "flags", __tags__: "tags", __meta__: "meta" } as const;
const filled = (v: Record<string, unknown> | null) => !!v && Object.keys(v).length > 0;

async function* pages(db: Queryable, projectId: string, stored: StoredIds | null): AsyncGenerator<TestcaseRow[]> {
  for await (const ids of idPages(db, projectId, stored)) yield loadTestcases(db, projectId, ids);
}

/** A row as the import reads it back: data columns, `__id__`, and the metadata columns that hold something. */
function exportRow(row: TestcaseRow, meta: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = { ...row.data, __id__: row.id };
  for (const column of meta) {
    const value = row[FIELD[column as keyof typeof FIELD]];
    if (filled(value)) out[column] = value;
  }
  return out;
}

/**
 * The revision's testcases as a file, streamed page by page. CSV needs its columns first, so it reads
 * the rows twice (keys only are kept from the first pass) rather than holding them.
 */
export async function exportRevision(db: Queryable, projectId: string, data: StoredIds | null, fileType: FileType): Promise<Readable> {
  if (fileType === "json") {
    return Readable.from((async function* () {
      let first = true;
      yield "[";
      for await (const rows of pages(db, projectId, data)) {
        for (const row of rows) {
          yield (first ? "\n" : ",\n") + JSON.stringify(exportRow(row, META));
          first = false;
        }
      }
      yield "\n]\n";
    })());
  }
  const keys = new Set<string>();
  const meta = new Set<string>();
  for await (const rows of pages(db, projectId, data)) {
    for (const row of rows) {
      for (const k of Object.keys(row.data)) if (k !== "testcase_dedup_id") keys.add(k);
      for (const column of META) if (filled(row[FIELD[column]])) meta.add(column);
    }
  }
  const columns = [...keys, "testcase_dedup_id", "__id__", ...META.filter((c) => meta.has(c))];
  const cell = (v: unknown) => (v === undefined || v === null ? "" : typeof v === "string" ? v : JSON.stringify(v));
  const records = Readable.from((async function* () {
    for await (const rows of pages(db, projectId, data)) {
      for (const row of rows) {
        const r = exportRow(row, [...meta]);
        yield columns.map((c) => cell(r[c]));
      }
    }
  })());
  return records.pipe(stringify({ header: true, columns }));
}
