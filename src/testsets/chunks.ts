import { createHash } from "node:crypto";
import type { Queryable } from "../db/database.ts";
import { json } from "../db/database.ts";
import { uuidFromBytes, uuidToBytes } from "./testcase-id.ts";

/** What a testset revision stores in `revisions.data`: its ordered id list as chunk hashes. */
export interface ChunkedIds {
  chunks: string[];
  count: number;
}

/** A boundary follows an id whose hash is 0 mod this: chunks average this many ids. */
export const CHUNK_DIVISOR = 512;
/** Caps a chunk when ids happen not to hit a boundary (bounds the bytes one edit can rewrite). */
const MAX_CHUNK = CHUNK_DIVISOR * 8;

/** FNV-1a over the id's 16 bytes: the boundary test must not depend on which bytes of an id are random. */
function boundaryHash(bytes: Uint8Array, offset: number): number {
  let h = 0x811c9dc5;
  for (let i = offset; i < offset + 16; i++) h = Math.imul(h ^ bytes[i], 0x01000193) >>> 0;
  return h;
}

/**
 * Content-defined chunking of an ordered id list: a boundary depends only on the id before it, so an
 * edit changes only the chunks around it and every other chunk keeps its bytes and hash.
 */
export function chunkIds(ids: string[]): Buffer[] {
  const chunks: Buffer[] = [];
  let current: Buffer[] = [];
  for (const id of ids) {
    const bytes = uuidToBytes(id);
    current.push(bytes);
    if (boundaryHash(bytes, 0) % CHUNK_DIVISOR === 0 || current.length >= MAX_CHUNK) {
      chunks.push(Buffer.concat(current));
      current = [];
    }
  }
  if (current.length) chunks.push(Buffer.concat(current));
  return chunks;
}

/** Stores the chunks not stored yet (dedup by content hash) and returns the revision's data. */
export async function storeIds(tx: Queryable, projectId: string, ids: string[]): Promise<ChunkedIds> {
  const chunks = chunkIds(ids).map((bytes) => ({ bytes, hash: createHash("sha256").update(bytes).digest("hex") }));
  const hashes = chunks.map((c) => c.hash);
  const existing = new Set((await tx.query<{ hash: string }>(
    "SELECT hash FROM testcase_chunks WHERE project_id = $1 AND hash IN (SELECT jsonb_array_elements_text($2::jsonb))",
    [projectId, json(hashes)],
  )).map((r) => r.hash));
  const written = new Set<string>();
  for (const c of chunks) {
    if (existing.has(c.hash) || written.has(c.hash)) continue;
    written.add(c.hash);
    await tx.query("INSERT INTO testcase_chunks (project_id, hash, ids) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING", [projectId, c.hash, c.bytes]);
  }
  return { chunks: hashes, count: ids.length };
}

/** The ordered testcase ids of a revision. */
export async function loadIds(db: Queryable, projectId: string, stored: ChunkedIds | null): Promise<string[]> {
  if (!stored?.chunks?.length) return [];
  const rows = await db.query<{ hash: string; ids: Uint8Array }>(
    "SELECT hash, ids FROM testcase_chunks WHERE project_id = $1 AND hash IN (SELECT jsonb_array_elements_text($2::jsonb))",
    [projectId, json([...new Set(stored.chunks)])],
  );
  const byHash = new Map(rows.map((r) => [r.hash, r.ids]));
  const ids: string[] = [];
  for (const hash of stored.chunks) {
    const bytes = byHash.get(hash);
    if (!bytes) throw new Error(`testcase chunk ${hash} is missing`);
    for (let o = 0; o < bytes.length; o += 16) ids.push(uuidFromBytes(bytes.subarray(o, o + 16)));
  }
  return ids;
}
