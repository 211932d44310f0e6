import type { Queryable } from "../db/database.ts";
import { json } from "../db/database.ts";
import { Chunker, chunkKey, readChunks, storeChunks, type Leaf } from "./chunks.ts";
import { uuidFromBytes, uuidToBytes } from "./testcase-id.ts";

/** Row edits by id: `replace` maps an old id to its new one; `append` goes after the last row. */
export interface IdEdits {
  replace: Map<string, string>;
  remove: Set<string>;
  append: string[];
}

/**
 * Positions of the leaves that hold any of `ids`, found through `testcase_chunk_index` and the chunk each testcase an
 * upload stored names (`testcases.chunk_key`, migration 035).
 */
export async function locateIds(db: Queryable, projectId: string, leaves: Leaf[], ids: string[]): Promise<Set<number>> {
  const dirty = new Set<number>();
  if (!ids.length || !leaves.length) return dirty;
  // Id by id through the key (OFFSET 0 keeps the subquery from becoming a join): with statistics that do not know
  // the project's rows yet, a join would hash every index entry of the project (see testcasesById).
  const rows = await db.query<{ chunk_key: string }>(
    `SELECT DISTINCT c.chunk_key::text AS chunk_key FROM jsonb_array_elements_text($2::jsonb) x CROSS JOIN LATERAL
       (SELECT chunk_key FROM testcase_chunk_index WHERE project_id = $1 AND testcase_id = x::uuid
        UNION ALL SELECT chunk_key FROM testcases WHERE project_id = $1 AND id = x::uuid AND chunk_key IS NOT NULL
        OFFSET 0) c`,
    [projectId, json([...new Set(ids)])],
  );
  const keys = new Set(rows.map((r) => r.chunk_key));
  leaves.forEach((leaf, i) => {
    if (keys.has(chunkKey(leaf.hash))) dirty.add(i);
  });
  return dirty;
}

/**
 * Applies the edits to the dirty leaves only. Each run of dirty leaves is re-chunked, and continues
 * into the following leaves until a chunk boundary falls where an old one did (content-defined
 * chunking re-synchronises there), so every other leaf is kept as it is. Returns the new leaves and
 * edited ids actually met, with how often (an index key can collide; the chunk itself is the truth).
 */
export async function editLeaves(tx: Queryable, projectId: string, leaves: Leaf[], dirty: Set<number>, edits: IdEdits) {
  if (edits.append.length && leaves.length) dirty.add(leaves.length - 1);
  const ahead = [...dirty].flatMap((i) => (i + 1 < leaves.length ? [i, i + 1] : [i]));
  const bytes = await readChunks(tx, projectId, ahead.map((i) => leaves[i].hash));
  const read = async (hash: string) => bytes.get(hash) ?? (await readChunks(tx, projectId, [hash])).get(hash)!;

  const met = new Map<string, number>();
  const meet = (id: string) => met.set(id, (met.get(id) ?? 0) + 1);
  const out: Leaf[] = [];
  const feedEdited = (chunker: Chunker, packed: Uint8Array) => {
    for (let o = 0; o < packed.length; o += 16) {
      const id = uuidFromBytes(packed.subarray(o, o + 16));
      const replacement = edits.replace.get(id);
      if (replacement !== undefined) {
        meet(id);
        chunker.push(uuidToBytes(replacement));
      } else if (edits.remove.has(id)) meet(id);
      else chunker.push(Buffer.from(packed.subarray(o, o + 16)));
    }
  };
  let i = 0;
  while (i < leaves.length) {
    if (!dirty.has(i)) {
      out.push(leaves[i++]);
      continue;
    }
    const chunker = new Chunker();
    do {
      const packed = await read(leaves[i].hash);
      if (dirty.has(i)) feedEdited(chunker, packed);
      else chunker.pushPacked(packed);
      i++;
    } while (i < leaves.length && (chunker.pending > 0 || dirty.has(i)));
    if (i === leaves.length) for (const id of edits.append) chunker.push(uuidToBytes(id));
    out.push(...(await storeChunks(tx, projectId, chunker.finish())));
  }
  if (!leaves.length && edits.append.length) {
    const chunker = new Chunker();
    for (const id of edits.append) chunker.push(uuidToBytes(id));
    out.push(...(await storeChunks(tx, projectId, chunker.finish())));
  }
  return { leaves: out, met };
}
