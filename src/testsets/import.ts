import type { Readable } from "node:stream";
import { parse } from "csv-parse";
import { unprocessable } from "../errors.ts";
import type { TestcaseInput } from "./testcases.ts";

/** A file's format: CSV with a header row, a JSON array of objects, or JSON Lines (one object per line). */
export type FileType = "csv" | "json" | "jsonl";
/** The formats uploads and downloads accept as `file_type`. */
export const FILE_TYPES: FileType[] = ["csv", "json", "jsonl"];

/** Rows still being read from an upload; the testset kind stores them as they arrive. */
export class TestcaseStream {
  readonly rows: AsyncIterable<TestcaseInput>;
  constructor(rows: AsyncIterable<TestcaseInput>) {
    this.rows = rows;
  }
}

const LOC = ["body", "file"];
const invalid = (msg: string) => unprocessable([{ loc: LOC, msg, type: "value_error" }]);

/** Testcase rows of a CSV (header row), JSON array of objects or JSON Lines file, read as a stream. */
export async function* readRows(stream: Readable, fileType: FileType): AsyncGenerator<TestcaseInput> {
  let index = 0;
  const values = fileType === "csv" ? csvRecords(stream) : jsonValues(stream);
  for await (const { value, where } of values) yield importRow(value, index++, where, fileType === "csv");
}

async function* csvRecords(stream: Readable): AsyncGenerator<{ value: unknown; where: string }> {
  const parser = stream.pipe(parse({ columns: true, bom: true, skip_empty_lines: true }));
  // pipe() does not pass a source error on (an upload over its size limit): end the parse with it.
  stream.once("error", (error) => parser.destroy(error));
  try {
    for await (const record of parser) yield { value: record, where: `line ${parser.info.lines}` };
  } catch (error) {
    const e = error as Error & { lines?: number; code?: string };
    if (!e.code?.startsWith("CSV_")) throw error;
    throw invalid(`Malformed CSV at line ${e.lines ?? "?"}: ${e.message}`);
  }
}

/** Splits a top-level JSON array into its elements without holding the whole text; else JSON Lines. */
async function* jsonValues(stream: Readable): AsyncGenerator<{ value: unknown; where: string }> {
  stream.setEncoding("utf8");
  let mode: "array" | "lines" | null = null;
  let depth = 0, inString = false, escape = false, ended = false, inElement = false;
  let parts: string[] = [];
  let pending = "";
  let index = 0, line = 0;
  const parseAt = (text: string, where: string) => {
    try {
      return { value: JSON.parse(text) as unknown, where };
    } catch (error) {
      throw invalid(`Malformed JSON in ${where}: ${(error as Error).message}`);
    }
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
    if (inElement) parts.push(s.slice(start));
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
  return {
    id: typeof __id__ === "string" && __id__ ? __id__ : null,
    flags: metadata(__flags__, "__flags__", where_),
    tags: metadata(__tags__, "__tags__", where_),
    meta: metadata(__meta__, "__meta__", where_),
    data,
  };
}
