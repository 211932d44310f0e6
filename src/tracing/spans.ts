/*
 * The spans table: normalised spans written in batches, read back by trace. A batch is binary COPY, loaded in
 * chunks of about `copyBytes` each in a transaction of its own, so the embedded database is never held for long.
 * A chunk that meets a span already stored (a re-sent span) is loaded again through a staging table and
 * replaces those spans, as the reference's ingest does.
 */

import type { Scope } from "../accounts/scope.ts";
import { BinaryRows } from "../db/copy-binary.ts";
import { copyUnlessConflict, type Database, type Queryable } from "../db/database.ts";
import { fromJsonb, jsonbText } from "../db/jsonb-text.ts";
import type { Span } from "./span.ts";
import { spanLabels } from "./span-labels.ts";

const COLUMNS = [
  "project_id", "trace_id", "span_id", "parent_id", "trace_type", "span_type", "span_kind", "span_name",
  "start_time", "end_time", "status_code", "status_message", "session_id", "user_id", "agent_id", "attributes",
  '"references"', "links", "events", "created_by_id", "labels",
];
const LIST = COLUMNS.join(", ");
/** The COPY statement `writeSpan` writes rows for. */
export const SPANS_COPY = `COPY spans (${LIST}) FROM STDIN WITH (FORMAT binary)`;
const REPLACED = COLUMNS.slice(3).map((c) => `${c} = EXCLUDED.${c}`).join(", ");
/** Most spans one transaction writes, whatever their size. */
const MAX_CHUNK_SPANS = 5000;
const DEFAULT_CHUNK_BYTES = 4 * 1024 * 1024;

/** The columns a read selects: times as text with their microseconds, in UTC. */
export const SPAN_SELECT = COLUMNS.slice(1, -1)
  .map((c) => (c === "start_time" || c === "end_time" ? `${time(c)} AS ${c}` : c))
  .concat(`${time("created_at")} AS created_at`)
  .join(", ");
function time(column: string) {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

// PostgreSQL text cannot hold U+0000 (jsonb values escape it: jsonb-text.ts); text columns drop it.
const text = (value: string | null) =>
  (value === null || !value.includes("\u0000") ? value : value.replaceAll("\u0000", ""));

/** A span as a row of `SPANS_COPY`. */
export function writeSpan(rows: BinaryRows, scope: Scope, s: Span): void {
  rows.row(COLUMNS.length).uuid(scope.projectId).uuid(s.trace_id).uuid(s.span_id).uuid(s.parent_id)
    .text(s.trace_type).text(s.span_type).text(s.span_kind).text(text(s.span_name))
    .timestamptz(s.start_time).timestamptz(s.end_time).text(s.status_code).text(text(s.status_message))
    .text(text(s.session_id)).text(text(s.user_id)).text(text(s.agent_id))
    .jsonb(jsonbText(s.attributes)).jsonb(jsonbText(s.references)).jsonb(jsonbText(s.links))
    .jsonb(jsonbText(s.events)).uuid(scope.userId ?? null).jsonb(jsonbText(spanLabels(s.attributes)));
}

/** Stores the spans in the caller's project; resolves once they are committed. The last of two same ids wins. */
export async function storeSpans(db: Database, scope: Scope, spans: Span[]): Promise<void> {
  await storeSpanChunks(db, spanChunks(scope, spans, db.copyBytes));
}

let chunkRows: BinaryRows | null = null;

/**
 * Spans in the caller's project as the data of `SPANS_COPY`s of about `copyBytes` (the database's load size) or
 * `MAX_CHUNK_SPANS` spans each, for `storeSpanChunks`, written as they are added: one span per id within what one
 * `add` is given (the last of two same ids wins), so that spans of one trace go in one `add`. Written into one
 * buffer, kept between batches (it grows to the largest chunk), then copied out a chunk at a time.
 */
export class SpanChunks {
  readonly #scope: Scope;
  readonly #copyBytes: number;
  readonly #rows = (chunkRows ??= new BinaryRows());
  readonly chunks: Buffer[] = [];
  #count = 0;

  constructor(scope: Scope, copyBytes = DEFAULT_CHUNK_BYTES) {
    this.#scope = scope;
    this.#copyBytes = copyBytes;
    this.#rows.rewind(0);
  }

  add(spans: Span[]): void {
    const unique = new Map<string, Span>();
    for (const span of spans) unique.set(`${span.trace_id}/${span.span_id}`, span);
    for (const span of unique.values()) {
      writeSpan(this.#rows, this.#scope, span);
      if (this.#rows.length >= this.#copyBytes || ++this.#count >= MAX_CHUNK_SPANS) {
        this.chunks.push(this.#rows.takeCopy());
        this.#count = 0;
      }
    }
  }

  /** The chunks, the last one closed. */
  done(): Buffer[] {
    if (this.#rows.length > 0) this.chunks.push(this.#rows.takeCopy());
    this.#count = 0;
    return this.chunks;
  }
}

/** `spans` as `SpanChunks` writes them, the last of two same ids winning. */
export function spanChunks(scope: Scope, spans: Span[], copyBytes = DEFAULT_CHUNK_BYTES): Buffer[] {
  const chunks = new SpanChunks(scope, copyBytes);
  chunks.add(spans);
  return chunks.done();
}

/** Stores chunks of `spanChunks`, each in a transaction of its own. */
export async function storeSpanChunks(db: Database, chunks: Buffer[]): Promise<void> {
  for (const chunk of chunks) await writeChunk(db, [chunk]);
}

function writeChunk(db: Database, data: Buffer[]): Promise<void> {
  return db.transaction(async (tx) => {
    if (await copyUnlessConflict(tx, SPANS_COPY, data)) return;
    await tx.query("CREATE TEMP TABLE spans_incoming (LIKE spans INCLUDING DEFAULTS) ON COMMIT DROP");
    await tx.copyFrom!(SPANS_COPY.replace("COPY spans", "COPY spans_incoming"), data);
    await tx.query(`INSERT INTO spans (${LIST}) SELECT ${LIST} FROM spans_incoming
      ON CONFLICT (project_id, trace_id, span_id) DO UPDATE SET ${REPLACED}, created_at = now()`);
  });
}

/** A stored span as read: JSON values as they were written. */
export type StoredSpan = Span & { created_at: string; created_by_id: string | null };

/** Rows of `SELECT ${SPAN_SELECT}` as spans. */
export const storedSpans = (rows: Record<string, unknown>[]): StoredSpan[] =>
  rows.map((row) => fromJsonb(row) as never);

/** Every span of the caller's traces among `traceIds` (uuids), oldest first; another project's are never seen. */
export async function spansOfTraces(db: Queryable, scope: Scope, traceIds: string[]): Promise<StoredSpan[]> {
  const rows = await db.query(
    `SELECT ${SPAN_SELECT} FROM spans WHERE project_id = $1 AND trace_id = ANY($2::uuid[])
     ORDER BY start_time, span_id`,
    [scope.projectId, traceIds],
  );
  return storedSpans(rows);
}

/** Deletes the caller's trace `traceId` (a uuid); the ids of the spans it had, none when it held none. */
export async function deleteTrace(
  db: Queryable, scope: Scope, traceId: string,
): Promise<{ trace_id: string; span_id: string }[]> {
  return await db.query(
    "DELETE FROM spans WHERE project_id = $1 AND trace_id = $2 RETURNING trace_id::text, span_id::text",
    [scope.projectId, traceId],
  ) as { trace_id: string; span_id: string }[];
}

/** Most spans one fetch by ids answers. */
export const MAX_BY_IDS = 10_000;

/** The caller's spans among `traceIds` and `spanIds` (uuids; both kinds must match when both are given). */
export async function spansByIds(
  db: Queryable, scope: Scope, traceIds: string[], spanIds: string[],
): Promise<StoredSpan[]> {
  const params: unknown[] = [scope.projectId];
  const where = ["project_id = $1"];
  for (const [column, ids] of [["trace_id", traceIds], ["span_id", spanIds]] as const) {
    if (ids.length > 0) where.push(`${column} = ANY($${params.push(ids)}::uuid[])`);
  }
  const rows = await db.query(
    `SELECT ${SPAN_SELECT} FROM spans WHERE ${where.join(" AND ")} ORDER BY start_time, span_id LIMIT ${MAX_BY_IDS}`,
    params,
  );
  return storedSpans(rows);
}
