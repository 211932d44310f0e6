import type { Readable } from "node:stream";
import { CsvError, parse } from "csv-parse";
import { HttpError, unprocessable } from "../errors.ts";
import { MAX_JSON_DEPTH, mayBeTooDeep, tooDeep } from "../json-depth.ts";
import { cellLimit, rowLimit } from "./limits.ts";
import type { TestcaseInput } from "./testcases.ts";

/** A file's format: CSV with a header row, a JSON array of objects, or JSON Lines (one object per line). */
export type FileType = "csv" | "json" | "jsonl";
/** The formats uploads and downloads accept as `file_type`. */
export const FILE_TYPES: FileType[] = ["csv", "json", "jsonl"];

const LOC = ["body", "file"];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const invalid = (msg: string) => unprocessable([{ loc: LOC, msg, type: "value_error" }]);
const tooDeepIn = (where: string) => unprocessable([
  { loc: LOC, msg: `${where} is nested deeper than ${MAX_JSON_DEPTH} levels`, type: "too_deep" },
]);

/**
 * Testcase rows of a CSV (header row), JSON array of objects or JSON Lines file, read as a stream.
 * A row over `TESSERA_ROW_LIMIT` bytes or a cell over `TESSERA_CELL_LIMIT` is refused (413) while
 * it is read, so the parser never holds more than one bounded row. `limits` default to the environment's.
 */
export async function* readRows(
  stream: Readable, fileType: FileType, limits = { row: rowLimit(), cell: cellLimit() },
): AsyncGenerator<TestcaseInput> {
  let index = 0;
  const values = fileType === "csv" ? csvRecords(stream, limits.row) : jsonValues(stream, limits.row);
  for await (const { value, where, bound } of values) {
    if (bound > limits.cell) checkCells(value, where, limits.cell);
    yield importRow(value, index++, where, fileType === "csv");
  }
}

interface RawRow {
  value: unknown;
  where: string;
  /** At least the UTF-8 size of the row's largest cell. */
  bound: number;
}

const tooLarge = (what: string) => new HttpError(413, what);
const rowTooLarge = (where: string, limit: number) =>
  tooLarge(`The row at ${where} is larger than the row limit of ${limit} bytes (TESSERA_ROW_LIMIT)`);

function checkCells(value: unknown, where: string, limit: number) {
  if (typeof value !== "object" || value === null) return;
  for (const [column, cell] of Object.entries(value)) {
    const text = typeof cell === "string" ? cell : JSON.stringify(cell) ?? "";
    if (text.length > limit || (text.length * 3 > limit && Buffer.byteLength(text) > limit)) {
      const name = JSON.stringify(column);
      throw tooLarge(`Column ${name} of the row at ${where} is larger than the cell limit of ${limit} bytes`
        + " (TESSERA_CELL_LIMIT)");
    }
  }
}

async function* csvRecords(stream: Readable, maxRow: number): AsyncGenerator<RawRow> {
  const parser = stream.pipe(parse({ bom: true, skip_empty_lines: true, max_record_size: maxRow, info: true }));
  // pipe() does not pass a source error on (an upload over its size limit): end the parse with it.
  stream.once("error", (error) => parser.destroy(error));
  let header: string[] | null = null;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      const where = `line ${info.lines}`;
      if (!header) {
        header = record;
        const seen = new Set<string>();
        for (const name of header) {
          if (seen.has(name)) throw invalid(`Column ${JSON.stringify(name)} appears twice in the CSV header (line 1)`);
          seen.add(name);
        }
        continue;
      }
      const row: Record<string, string> = {};
      let bound = 0;
      for (let i = 0; i < header.length; i++) {
        row[header[i]] = record[i];
        bound += 3 * record[i].length;
      }
      yield { value: row, where, bound };
    }
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    const lines = (error as CsvError & { lines?: number }).lines ?? parser.info.lines;
    if (error.code === "CSV_MAX_RECORD_SIZE") throw rowTooLarge(`line ${lines}`, maxRow);
    throw invalid(`Malformed CSV at line ${lines}: ${error.message}`);
  }
}

/** Splits a top-level JSON array into its elements without holding the whole text; else JSON Lines. */
async function* jsonValues(stream: Readable, maxRow: number): AsyncGenerator<RawRow> {
  stream.setEncoding("utf8");
  let mode: "array" | "lines" | null = null;
  let depth = 0, inString = false, escape = false, ended = false, inElement = false;
  let parts: string[] = [];
  let held = 0;
  let pending = "";
  let index = 0, line = 0;
  const parseAt = (text: string, where: string) => {
    if (text.length > maxRow && Buffer.byteLength(text) > maxRow) throw rowTooLarge(where, maxRow);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw invalid(`Malformed JSON in ${where}: ${(error as Error).message}`);
    }
    if (mayBeTooDeep(text) && tooDeep(value)) throw tooDeepIn(where);
    return { value, where, bound: 3 * text.length };
  };
  for await (const chunk of stream as AsyncIterable<string>) {
    let s = chunk;
    let i = 0;
    if (mode === null) {
      s = s.replace(/^\uFEFF?\s*/, "");
      if (!s) continue;
      mode = s[0] === "[" ? "array" : "lines";
      if (mode === "array") i = 1;
    }
    if (mode === "lines") {
      const lines = (pending + s).split("\n");
      pending = lines.pop()!;
      for (const text of lines) {
        line++;
        if (text.trim()) yield parseAt(text, `row ${index++} (line ${line})`);
      }
      // A row's UTF-8 size is at least its length: past that it is refused before it is whole.
      if (pending.length > maxRow) throw rowTooLarge(`row ${index} (line ${line + 1})`, maxRow);
      continue;
    }
    let start = inElement ? i : -1;
    for (; i < s.length; i++) {
      const c = s[i];
      if (ended) {
        if (!/\s/.test(c)) throw invalid("Unexpected content after the end of the JSON array");
        continue;
      }
      if (inString) {
        if (escape) escape = false;
        else if (c === "\\") escape = true;
        else if (c === '"') inString = false;
        continue;
      }
      if (depth === 0 && (c === "," || c === "]")) {
        if (inElement) {
          parts.push(s.slice(start, i));
          yield parseAt(parts.join(""), `row ${index++}`);
          parts = [];
          held = 0;
          inElement = false;
        } else if (c === ",") throw invalid(`Empty element at row ${index} of the JSON array`);
        if (c === "]") ended = true;
        continue;
      }
      if (c === '"') inString = true;
      else if (c === "{" || c === "[") depth++;
      else if (c === "}" || c === "]") depth--;
      if (!inElement && !/\s/.test(c)) {
        inElement = true;
        start = i;
      }
    }
    if (inElement) {
      parts.push(s.slice(start));
      held += s.length - start;
      if (held > maxRow) throw rowTooLarge(`row ${index}`, maxRow);
    }
  }
  if (mode === "array" && !ended) throw invalid(`The JSON array is not closed (after row ${index})`);
  if (mode === "lines" && pending.trim()) yield parseAt(pending, `row ${index++} (line ${line + 1})`);
}

function metadata(value: unknown, column: string, where: string): Record<string, unknown> | null {
  if (value === undefined || value === null || value === "") return null;
  let parsed = value;
  if (typeof value === "string") {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw invalid(`${column} in ${where} is not JSON`);
    }
    if (mayBeTooDeep(value) && tooDeep(parsed)) throw tooDeepIn(`${column} in ${where}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw invalid(`${column} in ${where} must be a JSON object`);
  return parsed as Record<string, unknown>;
}

/** `__id__`, `__flags__`, `__tags__`, `__meta__` become testcase fields; deprecated `__dedup_id__` becomes `data.testcase_dedup_id`. */
function importRow(value: unknown, index: number, where: string, csv: boolean): TestcaseInput {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalid(`Row ${index} (${where}) is not an object`);
  }
  const { __id__, __flags__, __tags__, __meta__, __dedup_id__, ...data } = value as Record<string, unknown>;
  if (__dedup_id__ !== undefined && __dedup_id__ !== null && __dedup_id__ !== "" && (data.testcase_dedup_id === undefined || data.testcase_dedup_id === "")) {
    data.testcase_dedup_id = String(__dedup_id__);
  }
  const where_ = csv ? where : `row ${index}`;
  const id = __id__ === undefined || __id__ === null || __id__ === "" ? null : __id__;
  // A well-formed id that names no stored row is a copied or edited row (it gets its own id); a
  // malformed one can only be a mistake, and replacing it silently would hide it.
  if (id !== null && (typeof id !== "string" || !UUID.test(id))) {
    throw invalid(
      `__id__ ${JSON.stringify(id)} in ${where_} is not a testcase id (a UUID); leave it empty for a new row`,
    );
  }
  return {
    id,
    flags: metadata(__flags__, "__flags__", where_),
    tags: metadata(__tags__, "__tags__", where_),
    meta: metadata(__meta__, "__meta__", where_),
    data,
  };
}
