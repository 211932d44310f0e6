import { Readable } from "node:stream";
import { type MessagePort, parentPort } from "node:worker_threads";
import { HttpError } from "../errors.ts";
import { lowerThreadPriority } from "../thread-priority.ts";
import { ColumnCounts } from "./columns.ts";
import { chunkKey, endsChunk, sha256 } from "./chunks.ts";
import { readRows } from "./import.ts";
import { BlockBuilder, ID_RANGES, type PendingTestcase, rangeOfHex } from "./row-block.ts";
import type { FromRowThread, PreparedRows, ToIdentify, ToParse, ToRowThread } from "./row-messages.ts";
import { DedupIds } from "./testcase-id.ts";
import { identifyRow, PackedIds, prepareRow } from "./testcases.ts";

/*
 * An upload thread. It runs either of an upload's two jobs, on two threads when the pool has them: parsing the file
 * the main thread streams to it (CSV, JSON or JSON Lines, with every limit and validation of `readRows`) into
 * prepared rows (canonical JSON, metadata, columns counted), and identifying those rows in the file's order (dedup
 * id, content-addressed id) into blocks of COPY text, one id range each, then the packed ids and column counts. The
 * parsing half does about as much work a row as the identifying half, so an upload keeps two cores busy. A thread
 * serves several uploads at once.
 */
const port = parentPort!;
/** How much lower than the process an upload thread's priority is (nice values, 0–19). */
const NICER = 5;
/** Most rows, and about the most text, one hand-over of prepared rows holds. */
const HANDOVER_ROWS = 1000;
const HANDOVER_CHARS = 256 * 1024;
/** Hand-overs the identifying job may be behind before the parsing job waits: what bounds its queue's memory. */
const AHEAD = 4;

void lowerThreadPriority(NICER);
const post = (message: FromRowThread, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);
const fail = (job: number, error: unknown) => {
  const http = error instanceof HttpError ? error : null;
  post({ type: "failed", job, status: http?.statusCode ?? null, detail: http?.detail ?? null,
    message: error instanceof Error ? error.message : String(error) });
};
/** The file of each parse job; the port to its parse job of each identify job. */
const feeds = new Map<number, Readable>();
const identifying = new Map<number, MessagePort>();

port.on("message", (message: ToRowThread) => {
  if (message.type === "parse") return void parse(message);
  if (message.type === "identify") return identify(message);
  if (message.type === "abort" && identifying.has(message.job)) {
    identifying.get(message.job)!.close();
    identifying.delete(message.job);
    return;
  }
  const feed = feeds.get(message.job);
  if (!feed) return;
  if (message.type === "chunk") {
    const { buffer, byteOffset, byteLength } = message.bytes;
    feed.push(Buffer.from(buffer, byteOffset, byteLength));
  } else if (message.type === "end") feed.push(null);
  else feed.destroy(new Error("The upload was abandoned"));
});

const noRows = (): PreparedRows => ({ text: [], dedupAt: [], named: [], flags: [], tags: [], meta: [] });

async function parse({ job, fileType, limits, port: next }: Extract<ToRowThread, { type: "parse" }>) {
  // Each read asks the main thread for the file's next piece: no more of the file is held here than the parser needs.
  const feed = new Readable({ read: () => post({ type: "more", job }) });
  feeds.set(job, feed);
  const columns = new ColumnCounts();
  let rows = noRows();
  let chars = 0;
  let ahead = 0;
  let closed = false;
  let taken: (() => void) | null = null;
  const wake = () => {
    taken?.();
    taken = null;
  };
  next.on("message", (_: ToParse) => (ahead--, wake()));
  next.on("close", () => ((closed = true), wake()));
  const handOver = async () => {
    next.postMessage({ type: "rows", rows } satisfies ToIdentify);
    rows = noRows();
    chars = 0;
    if (++ahead >= AHEAD && !closed) await new Promise<void>((resolve) => (taken = resolve));
    if (closed) throw new Error("The upload was abandoned");
  };
  try {
    for await (const row of readRows(feed, fileType, limits)) {
      const prepared = prepareRow(row, columns);
      rows.text.push(prepared.text);
      rows.dedupAt.push(prepared.dedupAt);
      rows.named.push(prepared.named);
      rows.flags.push(prepared.flags);
      rows.tags.push(prepared.tags);
      rows.meta.push(prepared.meta);
      chars += prepared.text.length;
      if (rows.text.length >= HANDOVER_ROWS || chars >= HANDOVER_CHARS) await handOver();
    }
    if (rows.text.length > 0) next.postMessage({ type: "rows", rows } satisfies ToIdentify);
    next.postMessage({ type: "end", columns: columns.stored() } satisfies ToIdentify);
    post({ type: "parsed", job });
  } catch (error) {
    fail(job, error);
  } finally {
    feeds.delete(job);
    feed.destroy();
  }
}

function identify({ job, owner, port: from }: Extract<ToRowThread, { type: "identify" }>) {
  identifying.set(job, from);
  const dedup = new DedupIds();
  const ids = new PackedIds();
  const blocks = Array.from({ length: ID_RANGES }, (_, range) => new BlockBuilder(owner, range));
  const flush = (block: BlockBuilder) => {
    if (block.empty) return;
    const { range, copy, claimed } = block.take();
    post({ type: "rows", job, range, copy, claimed }, [copy.buffer as ArrayBuffer]);
  };
  const stop = () => {
    identifying.delete(job);
    from.close();
  };
  // The rows of the chunk being read wait until it ends, then go into their blocks with its key: a testcase first
  // stored by this upload names the chunk it is stored in, and that chunk needs no index rows for it (chunk-edit.ts).
  // A row that names an id of its own may get that id once its claim is decided, which can change its chunk: the rows
  // of such a chunk name none, and it is indexed as any other.
  let open: { pending: PendingTestcase; id: string }[] = [];
  let claims = false;
  let chunkStart = 0;
  const homes: string[] = [];
  const endChunk = () => {
    if (!open.length) return;
    const hash = sha256(ids.bytes.subarray(chunkStart * 16));
    const key = claims ? null : chunkKey(hash);
    if (key !== null) homes.push(hash);
    for (const { pending, id } of open) {
      const block = blocks[rangeOfHex(id)]!;
      if (block.add(pending, id, key)) flush(block);
    }
    open = [];
    claims = false;
    chunkStart = ids.count;
  };
  from.on("message", (message: ToIdentify) => {
    try {
      if (message.type === "end") {
        endChunk();
        blocks.forEach(flush);
        const packed = new Uint8Array(ids.bytes);
        post({ type: "done", job, ids: packed, count: ids.count, columns: message.columns, homes }, [packed.buffer]);
        return stop();
      }
      const { text, dedupAt, named, flags, tags, meta } = message.rows;
      for (let i = 0; i < text.length; i++) {
        const prepared = { text: text[i]!, dedupAt: dedupAt[i]!, named: named[i]!, flags: flags[i]!, tags: tags[i]!,
          meta: meta[i]! };
        const pending = identifyRow(prepared, owner.testsetId, dedup, ids);
        open.push({ pending, id: ids.bytes.toString("hex", pending.at * 16, pending.at * 16 + 16) });
        claims ||= pending.claimed !== null;
        if (endsChunk(ids.bytes, pending.at * 16, ids.count - chunkStart)) endChunk();
      }
      from.postMessage({ type: "ack" } satisfies ToParse);
    } catch (error) {
      fail(job, error);
      stop();
    }
  });
}
