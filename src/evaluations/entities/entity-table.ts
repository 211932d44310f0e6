import type { Scope } from "../../accounts/scope.ts";
import { copyField, copyUnlessConflict, json, type Queryable } from "../../db/database.ts";
import { isUuid, uuidv7 } from "../../ids/uuid-v7.ts";
import { matchMetadata, type MetadataFilter } from "../../versioning/filters.ts";
import { Conditions } from "../../versioning/sql.ts";
import { applyWindow, page, type Windowing } from "../../versioning/windowing.ts";
import { linkable, type RowSource, runSources } from "./linked-rows.ts";
import { mistypedFilter } from "../errors.ts";

/*
 * Runs, scenarios, results and metrics are plain rows of the caller's project with the same life:
 * created in batches, edited field by field, queried with equality filters and id windowing. One
 * description per table drives all of it; rows travel through `jsonb_populate_recordset`, so each
 * value gets its column's type from the table itself.
 */

export type Row = Record<string, unknown>;

export interface EntityTable {
  table: string;
  /** Columns a create or an edit may set, with the value a create gets when it leaves one out. */
  fields: Record<string, unknown>;
  /** Fields an edit may not change (the run a scenario belongs to, …). */
  fixed: string[];
  /** Query filters: a wire name → its column, matched as one value or any of a list. */
  filters: Record<string, { column: string; many?: boolean; type: string }>;
  /** The unique slot a create fills in place of an older row (results, metrics), instead of adding one. */
  slot?: { columns: string[]; update: string[] };
  /** Query order when the caller names none: runs newest first, what is inside a run in creation order. */
  order: "ascending" | "descending";
  /**
   * Columns a row keeps that no client writes, which `read` turns into fields (tables.ts): an edit, or a create that
   * fills the row's slot, sets them to NULL, as the fields it writes replace them.
   */
  derived?: string[];
  /** A row as clients read it, from the row as stored. */
  read?: (row: Row) => Row;
}

const quote = (column: string) => `"${column}"`;

/** A row of `t` as clients read it: dates in ISO 8601, the project id left out. */
export function toRecord(t: EntityTable, row: Row): Row {
  const out: Row = {};
  for (const [key, value] of Object.entries(row)) {
    if (key === "project_id") continue;
    out[key] = value instanceof Date ? value.toISOString() : value;
  }
  return t.read ? t.read(out) : out;
}

/** `t.derived` set to NULL, each assignment followed by a comma. */
const clearDerived = (t: EntityTable) => (t.derived ?? []).map((c) => `${quote(c)} = NULL, `).join("");

/**
 * Inserts `items` (wire objects) in one statement and returns them as stored, in the order given. With
 * `returning: false` (bulk writes) nothing is read back: it returns the rows as sent, with their new ids.
 */
export async function insertRows(db: Queryable, scope: Scope, t: EntityTable, items: Row[], options: { returning?: boolean } = {}): Promise<Row[]> {
  if (items.length === 0) return [];
  const rows = newRows(scope, t, items);
  const list = columnsOf(t).map(quote).join(", ");
  const upsert = t.slot
    ? `ON CONFLICT (${t.slot.columns.map(quote).join(", ")}) DO UPDATE SET
       ${t.slot.update.map((c) => `${quote(c)} = excluded.${quote(c)}`).join(", ")},
       ${clearDerived(t)}updated_at = now(), updated_by_id = excluded.created_by_id`
    : "";
  const stored = await db.query<Row>(
    `INSERT INTO ${t.table} (${list}) SELECT ${list} FROM jsonb_populate_recordset(NULL::${t.table}, $1::jsonb)
     ${upsert}${options.returning === false ? "" : " RETURNING *"}`,
    [json(rows)],
  );
  return options.returning === false ? rows : stored.map((row) => toRecord(t, row));
}

/**
 * `insertRows` with `returning: false`, through COPY where the driver has it: for many rows at once, such as the
 * scenarios and results an evaluation plans and the results of its batches. PostgreSQL reads COPY's text a field at a
 * time, where a JSON array of rows is parsed whole and then taken apart: on the embedded database, a re-run of 20,000
 * testcases whose cells were all reused (80,000 rows) took 3.4 s, not 4.4 s. Where a row's slot is already taken (a
 * result a client wrote meanwhile), the load is rolled back and the rows go through `insertRows`, which fills slots in
 * place; in a transaction only.
 */
export async function copyRows(db: Queryable, scope: Scope, t: EntityTable, items: Row[]): Promise<Row[]> {
  if (!db.copyFrom) return insertRows(db, scope, t, items, { returning: false });
  if (items.length === 0) return [];
  const rows = newRows(scope, t, items);
  const columns = columnsOf(t);
  const lines = rows.map((row) => `${columns.map((c) => fieldOf(row[c], JSON_COLUMNS.has(c))).join("\t")}\n`);
  const sql = `COPY ${t.table} (${columns.map(quote).join(", ")}) FROM STDIN`;
  if (!t.slot) await db.copyFrom(sql, lines);
  else if (!(await copyUnlessConflict(db, sql, lines))) return insertRows(db, scope, t, items, { returning: false });
  return rows;
}

const columnsOf = (t: EntityTable) => ["id", "project_id", "created_by_id", ...Object.keys(t.fields)];

/** New rows for `items`: fresh ids, the caller's project and user, and each field's default where an item has none. */
function newRows(scope: Scope, t: EntityTable, items: Row[]): Row[] {
  return items.map((item) => {
    const row: Row = { id: uuidv7(), project_id: scope.projectId, created_by_id: scope.userId };
    for (const [field, fallback] of Object.entries(t.fields)) row[field] = item[field] ?? fallback;
    return row;
  });
}

/** The columns that are JSON (jsonb, or json: `partials`) in the evaluation tables. */
const JSON_COLUMNS = new Set(["flags", "tags", "meta", "data", "error", "partials"]);

/** A value as its COPY field: JSON for a jsonb column. */
function fieldOf(value: unknown, json: boolean): string {
  if (value === null || value === undefined) return "\\N";
  return copyField(json ? JSON.stringify(value) : value instanceof Date ? value.toISOString() : String(value));
}

/** The caller's rows with these ids, in id order (missing ones are left out). */
export async function fetchRows(db: Queryable, scope: Scope, t: EntityTable, ids: string[]): Promise<Row[]> {
  const rows = await db.query<Row>(
    `SELECT * FROM ${t.table} WHERE project_id = $1 AND id = ANY($2::uuid[]) ORDER BY id`,
    [scope.projectId, ids],
  );
  return rows.map((row) => toRecord(t, row));
}

/** Sets the fields an edit carries (a field it leaves out keeps its value); null when no such row. */
export async function editRow(db: Queryable, scope: Scope, t: EntityTable, id: string, edit: Row): Promise<Row | null> {
  const fields = Object.keys(t.fields).filter((f) => f in edit && !t.fixed.includes(f));
  const sets = [
    ...fields.map((f) => `${quote(f)} = e.${quote(f)}`), ...(t.derived ?? []).map((c) => `${quote(c)} = NULL`),
    "updated_at = now()", "updated_by_id = $4",
  ];
  const values: Row = {};
  for (const f of fields) values[f] = edit[f] ?? t.fields[f] ?? null;
  const rows = await db.query<Row>(
    `UPDATE ${t.table} AS t SET ${sets.join(", ")}
     FROM jsonb_populate_record(NULL::${t.table}, $1::jsonb) AS e
     WHERE t.id = $2 AND t.project_id = $3 RETURNING t.*`,
    [json(values), id, scope.projectId, scope.userId],
  );
  return rows[0] ? toRecord(t, rows[0]) : null;
}

/** Deletes the caller's rows with these ids; returns the ids deleted. */
export async function deleteRows(db: Queryable, scope: Scope, t: EntityTable, ids: string[]): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `DELETE FROM ${t.table} WHERE project_id = $1 AND id = ANY($2::uuid[]) RETURNING id`,
    [scope.projectId, ids],
  );
  return rows.map((r) => r.id).sort();
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// What each filter column type accepts, and how a 422 names it (the database would only name the value).
const FILTER_VALUE: Record<string, [(v: unknown) => boolean, string]> = {
  uuid: [(v) => typeof v === "string" && UUID.test(v), "a UUID"],
  integer: [(v) => Number.isInteger(v) && Math.abs(v as number) <= 2 ** 31 - 1, "an integer (32-bit)"],
  timestamptz: [(v) => typeof v === "string" && !Number.isNaN(Date.parse(v)), "an ISO 8601 date-time"],
  text: [(v) => typeof v === "string", "a string"],
};

/** 422 naming the filter when a value (each value, for a list filter) is not of its column's type. */
function checkFilterValue(name: string, type: string, many: boolean, value: unknown): void {
  const [valid, expected] = FILTER_VALUE[type]!;
  const ok = many ? Array.isArray(value) && value.every(valid) : valid(value);
  if (!ok) throw mistypedFilter(name, many ? `a list, each item ${expected}` : expected, value);
}

/**
 * A page of the caller's rows matching `filter` (its equality filters, flags, tags, meta and name); 422 for a mistyped
 * filter. A run's scenarios and results include those of the chunks it links: each of their sources gives its first
 * rows of the page, and the page is the first of those.
 */
export async function queryRows(db: Queryable, scope: Scope, t: EntityTable, filter: Row | null | undefined, windowing?: Windowing | null) {
  const window = { ...windowing, order: windowing?.order ?? t.order };
  const runIds = filter?.run_id ? [filter.run_id] : filter?.run_ids;
  const stepKeys = filter?.step_key ? [filter.step_key] : filter?.step_keys;
  const keys = Array.isArray(stepKeys) ? stepKeys.map(String) : null;
  const sources: RowSource[] = linkable(t) && Array.isArray(runIds) && runIds.every(isUuid)
    ? await runSources(db, scope.projectId, t, runIds as string[], keys)
    : [() => t.table];
  let rows: (Row & { id: string })[] = [];
  let limit = 0;
  for (const source of sources) {
    const where = conditions(scope, t, filter);
    const applied = applyWindow(where, "r.id", window, "r.created_at");
    limit = applied.limit;
    const from = source((v) => where.param(v));
    rows.push(...await db.query<Row & { id: string }>(`SELECT * FROM ${from} AS r WHERE ${where} ${applied.tail}`, where.params));
  }
  if (sources.length > 1) {
    const sign = window.order === "ascending" ? 1 : -1;
    rows = rows.sort((a, b) => sign * (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).slice(0, limit + 1);
  }
  const { items, windowing: next } = page(rows, limit, window);
  return { items: items.map((row) => toRecord(t, row)), windowing: next };
}

/** The WHERE clause of a query's filter (422 for a mistyped filter). */
function conditions(scope: Scope, t: EntityTable, filter: Row | null | undefined): Conditions {
  const where = new Conditions().add("r.project_id = ?::uuid", scope.projectId);
  for (const [name, value] of Object.entries(filter ?? {})) {
    const spec = t.filters[name];
    if (!spec || value === null || value === undefined) continue;
    const column = `r.${quote(spec.column)}`;
    // The reference's metric selectors: `scenario_ids: false` is the run-wide row, `true` the per-scenario rows.
    if (spec.many && typeof value === "boolean") where.add(`${column} IS ${value ? "NOT " : ""}NULL`);
    else {
      checkFilterValue(name, spec.type, spec.many === true, value);
      where.add(spec.many ? `${column} = ANY(?::${spec.type}[])` : `${column} = ?::${spec.type}`, value);
    }
  }
  const { flags, tags, meta, name } = (filter ?? {}) as MetadataFilter;
  matchMetadata(where, "r", { flags, tags, meta, name: "name" in t.fields ? name : null });
  return where;
}
