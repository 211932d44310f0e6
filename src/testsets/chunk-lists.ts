import type { Queryable } from "../db/database.ts";
import { json } from "../db/database.ts";
import type { StoredColumns } from "./columns.ts";
import { chunkPacked, existingHashes, readChunks, sha256, splitChunks, storeChunks, type Leaf } from "./chunks.ts";
import { uuidFromBytes, uuidToBytes } from "./testcase-id.ts";

/**
 * What a testset revision stores in `revisions.data`: its ordered ids as a two-level tree. `lists`
 * are chunk lists (each names up to a few hundred leaf chunks), so the record stays a few KB even for
 * millions of rows. Revisions written before chunk lists hold `chunks` (leaf hashes) instead.
 * `columns` and `column_order` count and order the data columns, when known (see ColumnCounts).
 */
export interface StoredIds extends StoredColumns {
  count: number;
  lists?: Leaf[];
  chunks?: string[];
}

/** A list boundary follows a leaf whose hash is 0 mod this: lists average this many leaves. */
const LIST_DIVISOR = 64;
const MAX_LIST = LIST_DIVISOR * 8;
const ENTRY = 36;

function encodeList(leaves: Leaf[]): Buffer {
  const bytes = Buffer.alloc(leaves.length * ENTRY);
  leaves.forEach((leaf, i) => {
    bytes.write(leaf.hash, i * ENTRY, "hex");
    bytes.writeUInt32BE(leaf.count, i * ENTRY + 32);
  });
  return bytes;
}

function decodeList(bytes: Uint8Array): Leaf[] {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const leaves: Leaf[] = [];
  for (let o = 0; o < b.length; o += ENTRY) leaves.push({ hash: b.toString("hex", o, o + 32), count: b.readUInt32BE(o + 32) });
  return leaves;
}

/**
 * Groups leaves into content-defined chunk lists and stores the lists not stored yet. Hashing every
 * list is cheap (36 bytes a leaf); only lists around changed leaves are new and written.
 */
export async function storeLeaves(tx: Queryable, projectId: string, leaves: Leaf[]): Promise<StoredIds> {
  const lists: { bytes: Buffer; leaf: Leaf }[] = [];
  let open: Leaf[] = [];
  const close = () => {
    const bytes = encodeList(open);
    lists.push({ bytes, leaf: { hash: sha256(bytes), count: open.reduce((n, l) => n + l.count, 0) } });
    open = [];
  };
  for (const leaf of leaves) {
    open.push(leaf);
    if (parseInt(leaf.hash.slice(-8), 16) % LIST_DIVISOR === 0 || open.length >= MAX_LIST) close();
  }
  if (open.length) close();
  const existing = await existingHashes(tx, "testcase_chunk_lists", projectId, lists.map((l) => l.leaf.hash));
  const fresh = lists.filter((l) => !existing.has(l.leaf.hash) && (existing.add(l.leaf.hash), true));
  for (let i = 0; i < fresh.length; i += 64) {
    const slice = fresh.slice(i, i + 64);
    await tx.query(
      `INSERT INTO testcase_chunk_lists (project_id, hash, entries)
       SELECT $1, h.hash, decode(h.entries, 'hex') FROM jsonb_to_recordset($2::jsonb) AS h(hash text, entries text) ON CONFLICT DO NOTHING`,
      [projectId, json(slice.map((l) => ({ hash: l.leaf.hash, entries: l.bytes.toString("hex") })))],
    );
  }
  return { count: leaves.reduce((n, l) => n + l.count, 0), lists: lists.map((l) => l.leaf) };
}

/** Stores a whole id list (full commits and uploads): linear in its length, as it must be. */
export async function storeIds(tx: Queryable, projectId: string, ids: string[]): Promise<StoredIds> {
  const packed = Buffer.alloc(ids.length * 16);
  ids.forEach((id, i) => uuidToBytes(id).copy(packed, i * 16));
  return storePackedIds(tx, projectId, packed);
}

/** `storeIds` for ids packed as 16-byte binary UUIDs. */
export async function storePackedIds(tx: Queryable, projectId: string, packed: Buffer): Promise<StoredIds> {
  return storeLeaves(tx, projectId, await storeChunks(tx, projectId, chunkPacked(packed)));
}

/**
 * `storePackedIds` for a list that arrives in pieces (an upload): leaf chunks are stored as they
 * close, while the rest of the list is still being read, each piece on the transaction it is given.
 */
export class IdListWriter {
  private readonly leaves: Leaf[] = [];
  private open: Buffer = Buffer.alloc(0);
  private readonly projectId: string;

  constructor(projectId: string) {
    this.projectId = projectId;
  }

  async add(tx: Queryable, packed: Uint8Array) {
    const { closed, open } = splitChunks(Buffer.concat([this.open, packed]));
    this.open = open;
    this.leaves.push(...(await storeChunks(tx, this.projectId, closed)));
  }

  async finish(tx: Queryable): Promise<StoredIds> {
    if (this.open.length) this.leaves.push(...(await storeChunks(tx, this.projectId, [this.open])));
    this.open = Buffer.alloc(0);
    return storeLeaves(tx, this.projectId, this.leaves);
  }
}

/** The revision's leaves in order: one read of its chunk lists (36 bytes a leaf), no testcase id. */
export async function loadLeaves(db: Queryable, projectId: string, stored: StoredIds | null): Promise<Leaf[]> {
  if (stored?.lists?.length) {
    const rows = await db.query<{ hash: string; entries: Uint8Array }>(
      "SELECT hash, entries FROM testcase_chunk_lists WHERE project_id = $1 AND hash IN (SELECT jsonb_array_elements_text($2::jsonb))",
      [projectId, json([...new Set(stored.lists.map((l) => l.hash))])],
    );
    const byHash = new Map(rows.map((r) => [r.hash, r.entries]));
    return stored.lists.flatMap((list) => {
      const entries = byHash.get(list.hash);
      if (!entries) throw new Error(`testcase chunk list ${list.hash} is missing`);
      return decodeList(entries);
    });
  }
  if (stored?.chunks?.length) {
    const rows = await db.query<{ hash: string; count: number }>(
      "SELECT hash, (length(ids) / 16)::int AS count FROM testcase_chunks WHERE project_id = $1 AND hash IN (SELECT jsonb_array_elements_text($2::jsonb))",
      [projectId, json([...new Set(stored.chunks)])],
    );
    const counts = new Map(rows.map((r) => [r.hash, r.count]));
    return stored.chunks.map((hash) => ({ hash, count: counts.get(hash) ?? 0 }));
  }
  return [];
}

export const unpackIds = (bytes: Uint8Array): string[] => {
  const ids: string[] = [];
  for (let o = 0; o < bytes.length; o += 16) ids.push(uuidFromBytes(bytes.subarray(o, o + 16)));
  return ids;
};

const LEAVES_PER_READ = 16;

/**
 * The revision's ids in order, a few chunks at a time, from position `from` up to `limit` ids:
 * readers that page or stream never hold the whole list.
 */
export async function* idPages(db: Queryable, projectId: string, stored: StoredIds | null, from = 0, limit = Infinity): AsyncGenerator<string[]> {
  const leaves = await loadLeaves(db, projectId, stored);
  let skip = from;
  let first = 0;
  while (first < leaves.length && skip >= leaves[first].count) skip -= leaves[first++].count;
  let left = limit;
  for (let i = first; i < leaves.length && left > 0;) {
    // Only the leaves that cover what is left (at most LEAVES_PER_READ a read): a short page reads one or two.
    let end = i;
    for (let need = skip + left; end < leaves.length && end - i < LEAVES_PER_READ && need > 0; end++) need -= leaves[end].count;
    const batch = leaves.slice(i, end);
    i = end;
    const bytes = await readChunks(db, projectId, batch.map((l) => l.hash));
    let ids = batch.flatMap((l) => unpackIds(bytes.get(l.hash)!));
    if (skip) ids = ids.slice(skip);
    skip = 0;
    if (ids.length > left) ids = ids.slice(0, left);
    left -= ids.length;
    if (ids.length) yield ids;
  }
}

/** The ordered testcase ids of a revision (whole; readers of large revisions use `idPages`). */
export async function loadIds(db: Queryable, projectId: string, stored: StoredIds | null): Promise<string[]> {
  const ids: string[] = [];
  for await (const page of idPages(db, projectId, stored)) for (const id of page) ids.push(id);
  return ids;
}
