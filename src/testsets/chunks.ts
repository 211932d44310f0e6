import { createHash } from "node:crypto";
import type { Queryable } from "../db/database.ts";
import { copyUnlessConflict, json } from "../db/database.ts";
import { BatchBuffer, batchSpans, bytesPrefix, orderByPrefix, type BatchLimits } from "./id-order.ts";

/** A leaf chunk as a revision's chunk list names it: the hash of its packed ids and how many ids it holds. */
export interface Leaf {
  hash: string;
  count: number;
}

/** A boundary follows an id whose hash is 0 mod this: chunks average this many ids. */
export const CHUNK_DIVISOR = 512;
/** Caps a chunk when ids happen not to hit a boundary (bounds the bytes one edit can rewrite). */
export const MAX_CHUNK = CHUNK_DIVISOR * 8;

/** FNV-1a over the id's 16 bytes: the boundary test must not depend on which bytes of an id are random. */
function boundaryHash(bytes: Uint8Array, offset: number): number {
  let h = 0x811c9dc5;
  for (let i = offset; i < offset + 16; i++) h = Math.imul(h ^ bytes[i], 0x01000193) >>> 0;
  return h;
}

/** Whether a chunk ends after the id at `offset`, the chunk's `count`-th. */
export const endsChunk = (bytes: Uint8Array, offset: number, count: number) =>
  boundaryHash(bytes, offset) % CHUNK_DIVISOR === 0 || count >= MAX_CHUNK;

export const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** Signed 64-bit prefix of a chunk hash, the key of `testcase_chunk_index`. */
export const chunkKey = (hash: string) => BigInt.asIntN(64, BigInt(`0x${hash.slice(0, 16)}`)).toString();

/**
 * Content-defined chunking of packed 16-byte ids: a boundary depends only on the id before it, so an
 * edit changes only the chunks around it and every other chunk keeps its bytes and hash. `open` is
 * the tail that has not reached a boundary yet; feeding more ids continues it.
 */
export class Chunker {
  readonly closed: Buffer[] = [];
  private open: Buffer[] = [];

  get pending() {
    return this.open.length;
  }

  push(id: Buffer) {
    this.open.push(id);
    if (endsChunk(id, 0, this.open.length)) {
      this.closed.push(Buffer.concat(this.open));
      this.open = [];
    }
  }

  pushPacked(bytes: Uint8Array) {
    for (let o = 0; o < bytes.length; o += 16) this.push(Buffer.from(bytes.subarray(o, o + 16)));
  }

  /** The closed chunks plus the open tail (the last chunk of a list may end without a boundary). */
  finish(): Buffer[] {
    if (this.open.length) this.closed.push(Buffer.concat(this.open));
    this.open = [];
    return this.closed;
  }
}

/** Content-defined chunks of a packed id list, as views into it (the same boundaries as Chunker). */
export function chunkPacked(bytes: Buffer): Buffer[] {
  const { closed, open } = splitChunks(bytes);
  return open.length ? [...closed, open] : closed;
}

/** The chunks of `bytes` that end at a boundary, and the rest (which more ids would continue). */
export function splitChunks(bytes: Buffer): { closed: Buffer[]; open: Buffer } {
  const closed: Buffer[] = [];
  let start = 0;
  for (let o = 0; o < bytes.length; o += 16) {
    if (endsChunk(bytes, o, (o + 16 - start) / 16)) {
      closed.push(bytes.subarray(start, o + 16));
      start = o + 16;
    }
  }
  return { closed, open: bytes.subarray(start) };
}

/** Chunks written per statement: a few MB of ids. */
const CHUNKS_PER_WRITE = 256;

/** A leaf chunk with its packed ids. */
export interface HashedChunk extends Leaf {
  bytes: Buffer;
}

export const hashChunks = (chunks: Buffer[]): HashedChunk[] =>
  chunks.map((bytes) => ({ bytes, hash: sha256(bytes), count: bytes.length / 16 }));

/** The chunks not stored yet, each once. */
export async function freshChunks(db: Queryable, projectId: string, chunks: HashedChunk[]): Promise<HashedChunk[]> {
  const existing = new Set<string>();
  for (let i = 0; i < chunks.length; i += 4096) {
    const hashes = chunks.slice(i, i + 4096).map((c) => c.hash);
    for (const hash of await existingHashes(db, "testcase_chunks", projectId, hashes)) existing.add(hash);
  }
  return chunks.filter((chunk) => !existing.has(chunk.hash) && (existing.add(chunk.hash), true));
}

/**
 * Stores the chunks not stored yet (dedup by content hash) with an index entry per id, and returns
 * them as leaves. Cost follows the number of chunks given, not the size of the testset; new chunks
 * are written many per statement.
 */
export async function storeChunks(tx: Queryable, projectId: string, chunks: Buffer[]): Promise<Leaf[]> {
  const leaves = hashChunks(chunks);
  const fresh = await freshChunks(tx, projectId, leaves);
  for (let i = 0; i < fresh.length; i += CHUNKS_PER_WRITE) {
    const slice = fresh.slice(i, i + CHUNKS_PER_WRITE);
    const stored = await insertChunks(tx, projectId, slice);
    // A chunk another transaction stored meanwhile is indexed by that transaction.
    const indexed = slice.filter((c) => stored.has(c.hash));
    for (const text of indexBatches(projectId, indexed)) await loadIndexLines(tx, projectId, text);
  }
  return leaves.map(({ hash, count }) => ({ hash, count }));
}

/** Writes the chunks' ids (those another transaction stored are left as they are); the hashes it stored. */
export async function insertChunks(tx: Queryable, projectId: string, chunks: HashedChunk[]): Promise<Set<string>> {
  let offset = 0;
  const entries = chunks.map((c) => {
    const entry = { hash: c.hash, o: offset, n: c.bytes.length };
    offset += c.bytes.length;
    return entry;
  });
  return new Set((await tx.query<{ hash: string }>(
    `INSERT INTO testcase_chunks (project_id, hash, ids)
     SELECT $1, h.hash, substring($2::bytea FROM h.o + 1 FOR h.n)
     FROM jsonb_to_recordset($3::jsonb) AS h(hash text, o int, n int) ON CONFLICT DO NOTHING RETURNING hash`,
    [projectId, Buffer.concat(chunks.map((c) => c.bytes)), json(entries)],
  )).map((r) => r.hash));
}

/** Two hex digits of each byte value, as character codes. */
const HEX_PAIRS = Buffer.from(Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0")).join(""));

/**
 * The `testcase_chunk_index` rows of the chunks as COPY text, one line per distinct id and chunk, in id order (see
 * id-order.ts), in batches of at most `limits.rows` lines and about `limits.bytes`, each made in `into` when it is
 * asked for.
 */
export function* indexBatches(
  projectId: string, chunks: HashedChunk[], limits: BatchLimits = { rows: Infinity, bytes: Infinity },
  into = new BatchBuffer(),
): Generator<Buffer> {
  const total = chunks.reduce((n, c) => n + c.bytes.length / 16, 0);
  const chunkOf = new Uint32Array(total);
  const offset = new Uint32Array(total);
  const prefix = new Float64Array(total);
  for (let c = 0, i = 0; c < chunks.length; c++) {
    const { bytes } = chunks[c]!;
    for (let o = 0; o < bytes.length; o += 16, i++) {
      chunkOf[i] = c;
      offset[i] = o;
      prefix[i] = bytesPrefix(bytes, o);
    }
  }
  const order = orderByPrefix(total, (i) => prefix[i]!);
  const tails = chunks.map((c) => Buffer.from(`\t${chunkKey(c.hash)}\t${projectId}\n`));
  const idOf = (i: number) => chunks[chunkOf[i]!]!.bytes.subarray(offset[i]!, offset[i]! + 16);
  const sameRow = (i: number, j: number) =>
    prefix[i] === prefix[j] && tails[chunkOf[i]!]!.equals(tails[chunkOf[j]!]!) && idOf(i).equals(idOf(j));
  // An id met twice in a chunk (or in two chunks of the same key) is one row. Ids with the same first 20 bits are
  // next to each other in `order` (it compares more bits than that), and are a handful at most: each is compared.
  const group = (i: number) => Math.floor(prefix[i]! / 2 ** 20);
  const distinct = new Uint32Array(total);
  let count = 0;
  for (let k = 0, run = 0; k < total; k++) {
    const i = order[k]!;
    if (k === 0 || group(i) !== group(order[k - 1]!)) run = count;
    let seen = false;
    for (let r = run; r < count && !seen; r++) seen = sameRow(distinct[r]!, i);
    if (!seen) distinct[count++] = i;
  }
  const length = (k: number) => 32 + tails[chunkOf[distinct[k]!]!]!.length;
  for (const [first, end, bytes] of batchSpans(count, limits, length)) {
    const batch = into.take(bytes);
    for (let k = first, to = 0; k < end; k++) {
      const i = distinct[k]!;
      const id = chunks[chunkOf[i]!]!.bytes;
      for (let b = offset[i]!; b < offset[i]! + 16; b++, to += 2) {
        batch[to] = HEX_PAIRS[id[b]! * 2]!;
        batch[to + 1] = HEX_PAIRS[id[b]! * 2 + 1]!;
      }
      to += tails[chunkOf[i]!]!.copy(batch, to);
    }
    yield batch;
  }
}

/**
 * Loads index lines by COPY. Only a collision of two chunk keys on a shared id, or a chunk indexed by another
 * transaction too, conflicts; the rows are then inserted with ON CONFLICT.
 */
export async function loadIndexLines(tx: Queryable, projectId: string, text: Buffer) {
  if (!text.length) return;
  const copy = "COPY testcase_chunk_index (testcase_id, chunk_key, project_id) FROM STDIN";
  if (await copyUnlessConflict(tx, copy, [text])) return;
  const rows = text.toString("latin1").split("\n").filter(Boolean).map((line) => line.split("\t", 2));
  await tx.query(
    `INSERT INTO testcase_chunk_index (project_id, testcase_id, chunk_key)
     SELECT $1, (r->>0)::uuid, (r->>1)::bigint FROM jsonb_array_elements($2::jsonb) r
     ORDER BY 2 ON CONFLICT DO NOTHING`,
    [projectId, json(rows)],
  );
}

export async function existingHashes(db: Queryable, table: "testcase_chunks" | "testcase_chunk_lists", projectId: string, hashes: string[]) {
  if (!hashes.length) return new Set<string>();
  const rows = await db.query<{ hash: string }>(
    `SELECT hash FROM ${table} WHERE project_id = $1 AND hash IN (SELECT jsonb_array_elements_text($2::jsonb))`,
    [projectId, json([...new Set(hashes)])],
  );
  return new Set(rows.map((r) => r.hash));
}

/** The packed ids of the given chunks, by hash. */
export async function readChunks(db: Queryable, projectId: string, hashes: string[]): Promise<Map<string, Uint8Array>> {
  if (!hashes.length) return new Map();
  const rows = await db.query<{ hash: string; ids: Uint8Array }>(
    "SELECT hash, ids FROM testcase_chunks WHERE project_id = $1 AND hash IN (SELECT jsonb_array_elements_text($2::jsonb))",
    [projectId, json([...new Set(hashes)])],
  );
  const byHash = new Map(rows.map((r) => [r.hash, r.ids]));
  for (const hash of hashes) if (!byHash.has(hash)) throw new Error(`testcase chunk ${hash} is missing`);
  return byHash;
}
