import type { Scope } from "../accounts/scope.ts";
import type { Queryable } from "../db/database.ts";
import { copyUnlessConflict, json } from "../db/database.ts";
import { fromJsonb, jsonbText, toJsonbText } from "../db/jsonb-text.ts";
import { canonicalJson, canonicalWith, canonicalWithout } from "./canonical-json.ts";
import type { ColumnCounts } from "./columns.ts";
import { unpackIds, type IdListWriter } from "./chunk-lists.ts";
import { BLOCK_COLUMNS, copyText, type ClaimedRow, type PendingTestcase } from "./row-block.ts";
import { DedupIds, testcaseIdBytes, uuidFromBytes, uuidToBytes } from "./testcase-id.ts";

/** A row as clients send it (JSON commits, parsed files). */
export interface TestcaseInput {
  id?: string | null;
  data?: Record<string, unknown> | null;
  flags?: Record<string, unknown> | null;
  tags?: Record<string, unknown> | null;
  meta?: Record<string, unknown> | null;
}

export interface TestcaseRow {
  id: string;
  testset_id: string;
  data: Record<string, unknown>;
  flags: Record<string, unknown> | null;
  tags: Record<string, unknown> | null;
  meta: Record<string, unknown> | null;
  created_at: Date;
  created_by_id: string | null;
}

const BATCH = 1000;
/** Rows loaded per COPY at most (and per deduplicating INSERT); the database's `copyBytes` caps the text too. */
const COPY_BATCH = 50_000;
/** The text cap where the database names none (a plain Queryable). */
const COPY_BYTES = 4 * 1024 * 1024;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A row read from `testcases` (all columns or some) with what jsonb could not hold restored (see jsonb-text.ts). */
export function restoredTestcase<T extends Partial<TestcaseRow>>(row: T): T {
  const data = fromJsonb(row.data), flags = fromJsonb(row.flags), tags = fromJsonb(row.tags), meta = fromJsonb(row.meta);
  const same = data === row.data && flags === row.flags && tags === row.tags && meta === row.meta;
  return same ? row : { ...row, data, flags, tags, meta };
}

export function testcaseRecord(row: TestcaseRow) {
  return {
    id: row.id,
    testset_id: row.testset_id,
    set_id: row.testset_id,
    data: row.data,
    flags: row.flags,
    tags: row.tags,
    meta: row.meta,
    created_at: new Date(row.created_at).toISOString(),
    created_by_id: row.created_by_id,
  };
}

/** Ordered testcase ids packed as 16-byte binary UUIDs in one growing buffer (16 MB at a million). */
export class PackedIds {
  private buffer: Buffer = Buffer.alloc(16 * 1024);
  count = 0;

  push(id: Uint8Array) {
    if ((this.count + 1) * 16 > this.buffer.length) {
      const bigger = Buffer.alloc(this.buffer.length * 2);
      this.buffer.copy(bigger);
      this.buffer = bigger;
    }
    this.buffer.set(id.subarray(0, 16), this.count++ * 16);
  }

  /** The first `count` ids of `bytes`, packed as they are (an upload thread's list, handed over). */
  static of(bytes: Uint8Array, count: number): PackedIds {
    const ids = new PackedIds();
    if (bytes.byteLength) ids.buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    ids.count = count;
    return ids;
  }

  get bytes(): Buffer {
    return this.buffer.subarray(0, this.count * 16);
  }
}

/** About the bytes of COPY text a pending row makes: id, data, flags, tags and meta, and their separators. */
export const pendingBytes = (r: PendingTestcase) =>
  40 + r.stored.length + (r.flags?.length ?? 0) + (r.tags?.length ?? 0) + (r.meta?.length ?? 0);

/**
 * A row's work that needs no other row of its file: its data's canonical JSON, without the dedup id an upload
 * generates for it when it brings none (`dedupAt` is then where that id's field goes, else -1), and its metadata as
 * jsonb text. Plain data: an upload thread that parses a file hands it to the thread that identifies the rows.
 */
export interface PreparedRow {
  text: string;
  dedupAt: number;
  /** The id the row names (`__id__`), when it is a UUID. */
  named: string | null;
  flags: string | null;
  tags: string | null;
  meta: string | null;
}

const DEDUP_KEY = "testcase_dedup_id";

/** Prepares a row for `identifyRow` and counts its columns in `columns`. */
export function prepareRow(row: TestcaseInput, columns?: ColumnCounts): PreparedRow {
  const data = row.data ?? {};
  columns?.add(data);
  const named = row.id && UUID.test(row.id) ? row.id.toLowerCase() : null;
  const own = data[DEDUP_KEY];
  const { text, at } = own === undefined || own === null || own === ""
    ? canonicalWithout(data, DEDUP_KEY) : { text: canonicalJson(data), at: -1 };
  const [flags, tags, meta] = [jsonbText(row.flags), jsonbText(row.tags), jsonbText(row.meta)];
  return { text, dedupAt: at, named, flags, tags, meta };
}

/**
 * Identifies a prepared row, in its file's order: its data with a `testcase_dedup_id` (generated from the content
 * and the identical rows before it when the row brings none), and the content-addressed id of that data's canonical
 * JSON, appended to `ids`.
 */
export function identifyRow(row: PreparedRow, testsetId: string, dedup: DedupIds, ids: PackedIds): PendingTestcase {
  const canonical = row.dedupAt < 0 ? row.text
    : canonicalWith(row.text, row.dedupAt, DEDUP_KEY, dedup.nextFor(row.text));
  const id = testcaseIdBytes(canonical, testsetId);
  const claimed = row.named !== null && row.named !== uuidFromBytes(id) ? row.named : null;
  const pending: PendingTestcase = {
    at: ids.count, stored: toJsonbText(canonical), claimed, flags: row.flags, tags: row.tags, meta: row.meta,
  };
  ids.push(id);
  return pending;
}

/** `prepareRow` then `identifyRow`: what a row costs before the database. */
export const pendTestcase = (
  row: TestcaseInput, testsetId: string, dedup: DedupIds, ids: PackedIds, columns?: ColumnCounts,
): PendingTestcase => identifyRow(prepareRow(row, columns), testsetId, dedup, ids);

/**
 * Writes batches of pending rows as immutable blobs (stored ones are left as they are) on whatever
 * transaction it is handed: one for a whole commit, or one per batch for an upload.
 */
export class TestcaseWriter {
  private readonly scope: Scope;
  private readonly testsetId: string;
  private readonly ids: PackedIds;
  // Rows go straight into the table until one is already stored (a re-upload, a repeated row).
  private direct = true;

  constructor(scope: Scope, testsetId: string, ids: PackedIds) {
    this.scope = scope;
    this.testsetId = testsetId;
    this.ids = ids;
  }

  /** Keeps the ids rows claim (rewriting them in `ids`), then stores the rows; `list` gets their ids once stored. */
  async write(tx: Queryable, batch: PendingTestcase[], list?: IdListWriter) {
    if (!batch.length) return;
    await keepClaimedIds(tx, this.scope, this.testsetId, this.ids, batch.filter((r) => r.claimed) as Claim[]);
    await this.load(tx, batch);
    await list?.add(tx, this.ids.bytes.subarray(batch[0].at * 16, (batch[batch.length - 1].at + 1) * 16));
  }

  /** Keeps the ids these rows of an upload claim that hold their data (see `keepClaimedIds`); their positions. */
  keepClaims(tx: Queryable, claimed: ClaimedRow[]): Promise<Set<number>> {
    return keepClaimedIds(tx, this.scope, this.testsetId, this.ids, claimed);
  }

  /** Loads COPY lines of an upload (row-block.ts), rows that are stored already left as they are. */
  async loadLines(tx: Queryable, parts: Buffer[]) {
    if (this.direct) {
      this.direct = await copyUnlessConflict(tx, `COPY testcases (${BLOCK_COLUMNS}) FROM STDIN`, parts);
      if (this.direct) return;
    }
    // Rows are staged, then inserted with ON CONFLICT: COPY itself cannot skip stored rows. A row stored before names
    // another chunk or none: its id gets an index row for the chunk this upload puts it in.
    await tx.query("CREATE TEMP TABLE IF NOT EXISTS testcase_block (LIKE testcases INCLUDING DEFAULTS) ON COMMIT DROP");
    await tx.copyFrom!(`COPY testcase_block (${BLOCK_COLUMNS}) FROM STDIN`, parts);
    await tx.query(`INSERT INTO testcases (${BLOCK_COLUMNS})
      SELECT ${BLOCK_COLUMNS} FROM testcase_block ORDER BY id ON CONFLICT DO NOTHING`);
    await tx.query(`INSERT INTO testcase_chunk_index (project_id, testcase_id, chunk_key)
      SELECT b.project_id, b.id, b.chunk_key FROM testcase_block b
      JOIN testcases t ON t.project_id = b.project_id AND t.id = b.id AND t.chunk_key IS DISTINCT FROM b.chunk_key
      WHERE b.chunk_key IS NOT NULL ORDER BY 2 ON CONFLICT DO NOTHING`);
    await tx.query("TRUNCATE testcase_block");
  }

  private async load(tx: Queryable, batch: PendingTestcase[]) {
    const { scope, testsetId } = this;
    const bytes = this.ids.bytes;
    const hex = (r: PendingTestcase) => bytes.toString("hex", r.at * 16, r.at * 16 + 16);
    if (batch.length >= BATCH && tx.copyFrom) {
      const constants = `\t${scope.projectId}\t${testsetId}\t${scope.userId ?? "\\N"}`;
      // In id order: the two indexes on testcases are then filled page by page, not at random.
      const fields = (r: PendingTestcase) => [r.stored, r.flags, r.tags, r.meta].map(copyText).join("\t");
      const lines = batch.map((r) => `${hex(r)}\t${fields(r)}`).sort();
      if (this.direct) {
        const copy = "COPY testcases (id, data, flags, tags, meta, project_id, testset_id, created_by_id) FROM STDIN";
        this.direct = await copyUnlessConflict(tx, copy, lines.map((l) => `${l}${constants}\n`));
        if (this.direct) return;
      }
      // Rows are staged, then inserted with ON CONFLICT: COPY itself cannot skip stored rows.
      await tx.query(`CREATE TEMP TABLE IF NOT EXISTS testcase_upload
        (id uuid, data jsonb, flags jsonb, tags jsonb, meta jsonb) ON COMMIT DROP`);
      await tx.copyFrom("COPY testcase_upload (id, data, flags, tags, meta) FROM STDIN", lines.map((l) => `${l}\n`));
      await tx.query(
        `INSERT INTO testcases (project_id, id, testset_id, data, flags, tags, meta, created_by_id)
         SELECT $1, id, $2, data, flags, tags, meta, $3 FROM testcase_upload ORDER BY id ON CONFLICT DO NOTHING`,
        [scope.projectId, testsetId, scope.userId],
      );
      await tx.query("TRUNCATE testcase_upload");
    } else {
      await tx.query(
        `INSERT INTO testcases (project_id, id, testset_id, data, flags, tags, meta, created_by_id)
         SELECT $1, (r->>0)::uuid, $2, (r->>1)::jsonb, (r->>2)::jsonb, (r->>3)::jsonb, (r->>4)::jsonb, $3
         FROM jsonb_array_elements($4::jsonb) r ON CONFLICT DO NOTHING`,
        [scope.projectId, testsetId, scope.userId, json(batch.map((r) => [hex(r), r.stored, r.flags, r.tags, r.meta]))],
      );
    }
  }
}

/**
 * Writes the rows as immutable blobs (existing ones are left as they are) and returns their ids in
 * the order given. Rows are written in batches while the source is read, so a file is never held
 * whole: per row only its 16-byte id stays (and a digest, to number identical rows).
 * `columns`, when given, counts the data columns of the rows.
 */
export async function storeTestcases(
  tx: Queryable, scope: Scope, testsetId: string, rows: AsyncIterable<TestcaseInput> | Iterable<TestcaseInput>,
  columns?: ColumnCounts,
): Promise<string[]> {
  return unpackIds((await storePackedTestcases(tx, scope, testsetId, rows, columns)).bytes);
}

/** `storeTestcases` with the ids packed; with `list`, each batch's ids also go on to it once stored. */
export async function storePackedTestcases(
  tx: Queryable, scope: Scope, testsetId: string, rows: AsyncIterable<TestcaseInput> | Iterable<TestcaseInput>,
  columns?: ColumnCounts, list?: IdListWriter,
): Promise<PackedIds> {
  const dedup = new DedupIds();
  const ids = new PackedIds();
  const writer = new TestcaseWriter(scope, testsetId, ids);
  let batch: PendingTestcase[] = [];
  let batchBytes = 0;
  const copyBytes = tx.copyBytes ?? COPY_BYTES;
  // The database loads one batch while the next is parsed and hashed (a server has a core of its own).
  let writing: Promise<void> = Promise.resolve();
  const flush = async () => {
    const full = batch;
    batch = [];
    batchBytes = 0;
    await writing;
    if (!full.length) return;
    writing = writer.write(tx, full, list);
    writing.catch(() => {}); // awaited by the next flush; an early failure must not go unhandled
  };
  try {
    for await (const row of rows) {
      const pending = pendTestcase(row, testsetId, dedup, ids, columns);
      batch.push(pending);
      batchBytes += pendingBytes(pending);
      if (batch.length >= COPY_BATCH || batchBytes >= copyBytes) await flush();
    }
  } catch (error) {
    // The load in flight finishes before the caller rolls back: none of its statements may run after.
    await writing.catch(() => {});
    throw error;
  }
  await flush();
  await writing;
  return ids;
}

type Claim = Pick<ClaimedRow, "at" | "claimed" | "stored">;

/**
 * A row that names an id (`__id__`, or `id` in JSON) keeps it when that testcase of this testset holds
 * exactly this data (ids made with a salt, or by another system); an edited row gets a new id.
 */
async function keepClaimedIds(
  tx: Queryable, scope: Scope, testsetId: string, ids: PackedIds, claimed: Claim[],
): Promise<Set<number>> {
  const kept = new Set<number>();
  for (let i = 0; i < claimed.length; i += BATCH) {
    const slice = claimed.slice(i, i + BATCH);
    const found = await tx.query<{ id: string; data: unknown }>(
      testcasesById("id, data", "AND testset_id = $3"),
      [scope.projectId, json([...new Set(slice.map((r) => r.claimed))]), testsetId],
    );
    // Both sides as stored: the escaped canonical text of the same content is the same text.
    const stored = new Map(found.map((r) => [r.id, toJsonbText(canonicalJson(fromJsonb(r.data)))]));
    const bytes = ids.bytes;
    for (const r of slice) {
      if (stored.get(r.claimed) !== r.stored) continue;
      uuidToBytes(r.claimed).copy(bytes, r.at * 16);
      kept.add(r.at);
    }
  }
  return kept;
}

/** Testcases by id, in the order of `ids`. */
export async function loadTestcases(db: Queryable, projectId: string, ids: string[]): Promise<TestcaseRow[]> {
  const columns = "id, testset_id, data, flags, tags, meta, created_at, created_by_id";
  return loadRows<TestcaseRow>(db, projectId, ids, columns);
}

type TestcaseData = Pick<TestcaseRow, "id" | "data">;

/** `loadTestcases` with each testcase's id and data only (what an evaluation gives the application). */
export function loadTestcaseData(db: Queryable, projectId: string, ids: string[]): Promise<TestcaseData[]> {
  return loadRows(db, projectId, ids, "id, data");
}

/**
 * The testcases of project `$1` whose ids are in the jsonb array `$2` (distinct), each looked up through the key on
 * its own: a LATERAL subquery with a LIMIT is never turned into a join. Right after a large upload the statistics
 * do not know the project's new rows yet; the join the planner then chose hashed every row of the project for each
 * page (3.8 s for 1,000 ids in a 450,000-row project on the embedded database, where it held every other request).
 * As a uuid[] compared with `= ANY`, PostgreSQL filtered each of a large project's rows against the whole list (a
 * 1,000,000-row download went from 16 s to 117 s). `where` adds conditions on the row (parameters from `$3`).
 */
export const testcasesById = (columns: string, where = "") =>
  `SELECT t.* FROM jsonb_array_elements_text($2::jsonb) x CROSS JOIN LATERAL
     (SELECT ${columns} FROM testcases WHERE project_id = $1 AND id = x::uuid ${where} LIMIT 1) t`;

// Only the columns asked for: on the embedded database, 200 rows by id and data took a quarter less time than with
// every column (no dates to parse).
async function loadRows<T extends TestcaseData>(db: Queryable, projectId: string, ids: string[], columns: string) {
  const out: T[] = [];
  for (let i = 0; i < ids.length; i += BATCH) {
    const slice = ids.slice(i, i + BATCH);
    const rows = await db.query<T>(testcasesById(columns), [projectId, json([...new Set(slice)])]);
    const byId = new Map(rows.map((r) => [r.id, restoredTestcase(r)]));
    for (const id of slice) {
      const row = byId.get(id);
      if (row) out.push(row);
    }
  }
  return out;
}

/** Ids (in order) that are not testcases of this testset. */
export async function unknownTestcaseIds(db: Queryable, projectId: string, testsetId: string, ids: string[]): Promise<string[]> {
  const known = new Set<string>();
  for (let i = 0; i < ids.length; i += BATCH) {
    const rows = await db.query<{ id: string }>(
      testcasesById("id", "AND testset_id = $3"),
      [projectId, json([...new Set(ids.slice(i, i + BATCH).map((id) => id.toLowerCase()))]), testsetId],
    );
    for (const r of rows) known.add(r.id);
  }
  return ids.filter((id) => !known.has(id.toLowerCase()));
}
