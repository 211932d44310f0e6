import type { Scope } from "../accounts/scope.ts";
import type { Database, Queryable } from "../db/database.ts";
import { storeLeaves } from "./chunk-lists.ts";
import { chunkPacked, freshChunks, hashChunks, indexBatches, insertChunks, loadIndexLines } from "./chunks.ts";
import { ColumnCounts } from "./columns.ts";
import { ResolvedIds } from "./delta.ts";
import { BatchBuffer, batchSpans, idOrderedBatches, type BatchLimits } from "./id-order.ts";
import type { FileType } from "./import.ts";
import { BLOCK_BYTES, BLOCK_ROWS, ID_RANGES } from "./row-block.ts";
import type { RowPool } from "./row-pool.ts";
import { TestcaseWriter, type PackedIds } from "./testcases.ts";
import { UploadSpool } from "./upload-spool.ts";

/** An upload's rows, read and identified, not yet written: no transaction was open while the file came in. */
export interface ReceivedUpload {
  readonly testsetId: string;
  readonly ids: PackedIds;
  readonly columns: ColumnCounts;
  /** Hashes of the chunks whose rows name them (`testcases.chunk_key`): the chunks that need no index rows. */
  readonly homes: Set<string>;
  readonly spool: UploadSpool;
}

// The embedded database is one backend: a transaction holds every other request until it ends. Its batches are
// kept to a few tens of milliseconds (a block: 1,000 rows is the least loaded by COPY), and only one upload writes at
// a time, so a request waits for at most about one batch per query it makes.
const PGLITE_BATCH: BatchLimits = { rows: BLOCK_ROWS, bytes: BLOCK_BYTES };
// A server runs a batch beside other requests; this thread only hands the blocks' COPY text on.
const SERVER_BATCH: BatchLimits = { rows: 10_000, bytes: 4 * 1024 ** 2 };
const writing = new WeakMap<Database, Promise<unknown>>();

/**
 * Runs `work` after the batches of this process's other uploads queued before it: uploads take turns batch by batch.
 * On a server too, concurrent uploads would otherwise keep as many backends busy loading rows, each taking a core
 * from the requests of other projects; one at a time, they load no slower on a machine of a few cores.
 */
function inTurn<T>(db: Database, work: () => Promise<T>): Promise<T> {
  const turn = (writing.get(db) ?? Promise.resolve()).then(work);
  writing.set(db, turn.catch(() => {}));
  return turn;
}

/** Longest a batch waits for other requests' statements to be through before it takes the embedded database. */
const YIELD_MS = 100;

/**
 * Waits until no other statement holds or waits for the embedded database, for at most `YIELD_MS`. A request
 * makes its queries one after another, the next as soon as the last answers: a batch that went in between each
 * two would make a read of six queries wait six batches; waiting for a gap lets the read through after one.
 */
async function afterOthers(db: Database) {
  const until = performance.now() + YIELD_MS;
  while ((db.pending?.() ?? 0) > 0 && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 1));
}

// A spool in memory is read without waiting on anything: without a turn of the event loop between batches,
// requests that arrived meanwhile would not even be read until the whole upload was written.
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Reads the whole file into a spool before anything is written, so a client that stalls or sends a bad row holds no
 * transaction and leaves nothing behind. The rows are parsed, identified and turned into COPY text on one of `pool`'s
 * threads while the file arrives; this thread only passes the bytes on and spools the blocks. `close()` the spool
 * after.
 */
export async function receiveFile(
  pool: RowPool, content: AsyncIterable<Uint8Array>, fileType: FileType, scope: Scope, testsetId: string,
): Promise<ReceivedUpload> {
  const spool = new UploadSpool();
  try {
    const owner = { projectId: scope.projectId, testsetId, userId: scope.userId };
    const { ids, columns, homes } = await pool.identify(content, fileType, owner, (block) => spool.push(block));
    return { testsetId, ids, columns, homes, spool };
  } catch (error) {
    await spool.close();
    throw error;
  }
}

/**
 * Writes a received upload's testcases and id chunks in short transactions that other requests interleave with.
 * All of it is content-addressed and reachable only from a revision, which the caller commits afterwards in one
 * transaction of its own; an upload stopped before that leaves only unreferenced blobs.
 *
 * Rows are loaded in id order across the whole upload, an id range at a time (its blocks merged), and the index rows
 * of its new chunks after them in id order too: at 1,000,000 rows, loading each block on its own made every insert
 * into the indexes of `testcases` and `testcase_chunk_index` land on a page at random.
 */
export async function storeReceived(
  db: Database, scope: Scope, received: ReceivedUpload, onStored?: (rows: number) => void,
): Promise<ResolvedIds> {
  const limits = db.driver === "pglite" ? PGLITE_BATCH : SERVER_BATCH;
  const { projectId } = scope;
  const writer = new TestcaseWriter(scope, received.testsetId, received.ids);
  const inBatch = async <T>(work: (tx: Queryable) => Promise<T>) => {
    const done = await inTurn(db, async () => {
      await afterOthers(db);
      return db.transaction(work);
    });
    await nextTurn();
    return done;
  };
  const into = new BatchBuffer();
  let stored = 0;
  for (let range = 0; range < ID_RANGES; range++) {
    const rows = await received.spool.range(range);
    // A claim is decided before its row's id goes into a chunk: a kept claim's row is not loaded again.
    const unkept: Buffer[] = [];
    for (let i = 0; i < rows.claimed.length; i += BLOCK_ROWS) {
      const claimed = rows.claimed.slice(i, i + BLOCK_ROWS);
      const kept = await inBatch((tx) => writer.keepClaims(tx, claimed));
      for (const row of claimed) if (!kept.has(row.at)) unkept.push(Buffer.from(row.line));
      stored += kept.size;
    }
    const text = unkept.length ? Buffer.concat([rows.text, ...unkept]) : rows.text;
    for (const batch of idOrderedBatches(text, limits, into)) {
      await inBatch((tx) => writer.loadLines(tx, [batch.text]));
      stored += batch.rows;
      onStored?.(stored);
    }
  }
  // Chunk boundaries follow the ids in file order, as for every other write of an id list.
  const chunks = hashChunks(chunkPacked(received.ids.bytes));
  const fresh = await inTurn(db, () => freshChunks(db, projectId, chunks));
  // A new chunk's index rows go in before the chunk: a stored chunk is always indexed, even if the upload stops. The
  // rows of a chunk the upload's threads named in each of its rows are stored, each naming it, or were stored before
  // and got an index row then (see TestcaseWriter.loadLines).
  const unnamed = fresh.filter((chunk) => !received.homes.has(chunk.hash));
  for (const text of indexBatches(projectId, unnamed, limits, into)) {
    await inBatch((tx) => loadIndexLines(tx, projectId, text));
  }
  for (const [first, end] of batchSpans(fresh.length, limits, (i) => fresh[i]!.bytes.length)) {
    await inBatch((tx) => insertChunks(tx, projectId, fresh.slice(first, end)));
  }
  const leaves = chunks.map(({ hash, count }) => ({ hash, count }));
  const ids = await inTurn(db, () => db.transaction((tx) => storeLeaves(tx, projectId, leaves)));
  return new ResolvedIds({ ...ids, ...received.columns.stored() });
}
