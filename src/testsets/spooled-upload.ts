import type { Scope } from "../accounts/scope.ts";
import type { Database } from "../db/database.ts";
import { IdListWriter } from "./chunk-lists.ts";
import { ColumnCounts } from "./columns.ts";
import { ResolvedIds } from "./delta.ts";
import type { FileType } from "./import.ts";
import { BLOCK_BYTES, BLOCK_ROWS, type RowBlock } from "./row-block.ts";
import type { RowPool } from "./row-pool.ts";
import { TestcaseWriter, type PackedIds } from "./testcases.ts";
import { UploadSpool } from "./upload-spool.ts";

/** An upload's rows, read and identified, not yet written: no transaction was open while the file came in. */
export interface ReceivedUpload {
  readonly testsetId: string;
  readonly ids: PackedIds;
  readonly columns: ColumnCounts;
  readonly spool: UploadSpool;
}

// The embedded database is one backend: a transaction holds every other request until it ends. Its batches are
// kept to a few tens of milliseconds (a block: 1,000 rows is the least loaded by COPY), and only one upload writes at
// a time, so a request waits for at most about one batch per query it makes.
const PGLITE_BATCH = { rows: BLOCK_ROWS, bytes: BLOCK_BYTES };
// A server runs a batch beside other requests; this thread only hands the blocks' COPY text on.
const SERVER_BATCH = { rows: 10_000, bytes: 4 * 1024 ** 2 };
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
    const { ids, columns } = await pool.identify(content, fileType, owner, (block) => spool.push(block));
    return { testsetId, ids, columns, spool };
  } catch (error) {
    await spool.close();
    throw error;
  }
}

/**
 * Writes a received upload's testcases and id chunks in short transactions that other requests interleave with.
 * All of it is content-addressed and reachable only from a revision, which the caller commits afterwards in one
 * transaction of its own; an upload stopped before that leaves only unreferenced blobs.
 */
export async function storeReceived(
  db: Database, scope: Scope, received: ReceivedUpload, onStored?: (rows: number) => void,
): Promise<ResolvedIds> {
  const limits = db.driver === "pglite" ? PGLITE_BATCH : SERVER_BATCH;
  const writer = new TestcaseWriter(scope, received.testsetId, received.ids);
  const list = new IdListWriter(scope.projectId);
  let batch: RowBlock[] = [];
  let rows = 0;
  let bytes = 0;
  let at = 0;
  const flush = async () => {
    const full = batch;
    const from = at;
    at += rows;
    batch = [];
    rows = 0;
    bytes = 0;
    if (!full.length) return;
    await inTurn(db, async () => {
      await afterOthers(db);
      return db.transaction((tx) => writer.writeBlocks(tx, full, from, at, list));
    });
    onStored?.(at);
    await nextTurn();
  };
  for await (const block of received.spool.blocks()) {
    batch.push(block);
    rows += block.rows;
    bytes += block.copy.byteLength;
    if (rows >= limits.rows || bytes >= limits.bytes) await flush();
  }
  await flush();
  const stored = await inTurn(db, () => db.transaction((tx) => list.finish(tx)));
  return new ResolvedIds({ ...stored, ...received.columns.stored() });
}
