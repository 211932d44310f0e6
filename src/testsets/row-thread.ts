import { readlinkSync } from "node:fs";
import { getPriority, setPriority } from "node:os";
import { Readable } from "node:stream";
import { parentPort } from "node:worker_threads";
import { HttpError } from "../errors.ts";
import { ColumnCounts } from "./columns.ts";
import { readRows } from "./import.ts";
import { BlockBuilder, ID_RANGES, rangeOfHex } from "./row-block.ts";
import type { FromRowThread, ToRowThread } from "./row-messages.ts";
import { DedupIds } from "./testcase-id.ts";
import { PackedIds, pendTestcase } from "./testcases.ts";

/*
 * An upload thread: parses the files the main thread streams to it (CSV, JSON or JSON Lines, with every limit and
 * validation of `readRows`), identifies each row (canonical JSON, dedup id, content-addressed id) and sends the rows
 * back as blocks of COPY text, one id range each, then the packed ids and column counts. A thread serves several
 * uploads at once.
 */
const port = parentPort!;
/** How much lower than the process an upload thread's priority is (nice values, 0–19). */
const NICER = 5;

// On Linux a thread has a nice value of its own (setpriority on its thread id): file parsing gives way to the thread
// that answers requests when both want a core, and takes every core left idle. Elsewhere the thread keeps the
// process's priority.
try {
  const thread = Number(readlinkSync("/proc/thread-self").split("/").pop());
  if (Number.isInteger(thread) && thread !== process.pid) {
    setPriority(thread, Math.min(19, getPriority(thread) + NICER));
  }
} catch {
  // No /proc, or no right to change priorities: the thread runs at the process's priority.
}
const post = (message: FromRowThread, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);
const feeds = new Map<number, Readable>();

port.on("message", (message: ToRowThread) => {
  if (message.type === "start") return void run(message);
  const feed = feeds.get(message.job);
  if (!feed) return;
  if (message.type === "chunk") {
    const { buffer, byteOffset, byteLength } = message.bytes;
    feed.push(Buffer.from(buffer, byteOffset, byteLength));
  } else if (message.type === "end") feed.push(null);
  else feed.destroy(new Error("The upload was abandoned"));
});

async function run({ job, fileType, owner, limits }: Extract<ToRowThread, { type: "start" }>) {
  // Each read asks the main thread for the file's next piece: no more of the file is held here than the parser needs.
  const feed = new Readable({ read: () => post({ type: "more", job }) });
  feeds.set(job, feed);
  const dedup = new DedupIds();
  const ids = new PackedIds();
  const columns = new ColumnCounts();
  const blocks = Array.from({ length: ID_RANGES }, (_, range) => new BlockBuilder(owner, range));
  const flush = (block: BlockBuilder) => {
    if (block.empty) return;
    const { range, copy, rows, claimed } = block.take();
    post({ type: "rows", job, range, copy, rows, claimed }, [copy.buffer as ArrayBuffer]);
  };
  try {
    for await (const row of readRows(feed, fileType, limits)) {
      const pending = pendTestcase(row, owner.testsetId, dedup, ids, columns);
      const id = ids.bytes.toString("hex", pending.at * 16, pending.at * 16 + 16);
      const block = blocks[rangeOfHex(id)];
      if (block.add(pending, id)) flush(block);
    }
    blocks.forEach(flush);
    const packed = new Uint8Array(ids.bytes);
    post({ type: "done", job, ids: packed, count: ids.count, columns: columns.stored() }, [packed.buffer]);
  } catch (error) {
    const http = error instanceof HttpError ? error : null;
    post({ type: "failed", job, status: http?.statusCode ?? null, detail: http?.detail ?? null,
      message: error instanceof Error ? error.message : String(error) });
  } finally {
    feeds.delete(job);
    feed.destroy();
  }
}
