import { Worker } from "node:worker_threads";
import { HttpError } from "../errors.ts";
import { ColumnCounts } from "./columns.ts";
import type { FileType } from "./import.ts";
import { cellLimit, rowLimit } from "./limits.ts";
import type { RowBlock, RowOwner } from "./row-block.ts";
import type { FromRowThread, ToRowThread } from "./row-messages.ts";
import { PackedIds } from "./testcases.ts";

const THREAD_URL = new URL("./row-thread.ts", import.meta.url);

/** An upload's rows as the thread identified them: packed ids in file order and the data columns counted. */
export interface IdentifiedRows {
  ids: PackedIds;
  columns: ColumnCounts;
}

interface Job {
  content: AsyncIterator<Uint8Array>;
  /** The spool's writes, chained: blocks reach it in the order the thread sent them. */
  writing: Promise<void>;
  onRows(block: RowBlock): Promise<void>;
  resolve(rows: IdentifiedRows): void;
  reject(error: unknown): void;
}

interface Thread {
  worker: Worker;
  jobs: Map<number, Job>;
}

/**
 * Threads that do an upload's row work (row-thread.ts): parsing, canonical JSON, the two hashes of each row and its
 * COPY line, off the thread that answers requests and (on the embedded database) runs every query. Each upload goes
 * to the thread with the fewest, so concurrent uploads use every core; threads start with the first uploads, and
 * one that dies fails only its own uploads and is replaced by the next upload.
 */
export class RowPool {
  readonly #size: number;
  readonly #threads: Thread[] = [];
  #next = 0;

  constructor(size: number) {
    this.#size = Math.max(1, size);
  }

  /**
   * Streams `content` to a thread and hands each block of its rows to `onRows`, in order; settles with the ids and
   * columns, or with the parser's error (the same `HttpError` as `readRows` would throw here).
   */
  identify(
    content: AsyncIterable<Uint8Array>, fileType: FileType, owner: RowOwner, onRows: (block: RowBlock) => Promise<void>,
  ): Promise<IdentifiedRows> {
    const thread = this.#pick();
    const id = this.#next++;
    return new Promise<IdentifiedRows>((resolve, reject) => {
      const settle = () => thread.jobs.delete(id);
      thread.jobs.set(id, {
        content: content[Symbol.asyncIterator](),
        writing: Promise.resolve(),
        onRows,
        resolve: (rows) => (settle(), resolve(rows)),
        reject: (error) => {
          // Stops the thread's work on it (a failure on this side: the client's body, the spool).
          if (thread.jobs.has(id)) send(thread, { type: "abort", job: id });
          settle();
          reject(error);
        },
      });
      send(thread, { type: "start", job: id, fileType, owner, limits: { row: rowLimit(), cell: cellLimit() } });
    });
  }

  async close(): Promise<void> {
    const threads = this.#threads.splice(0);
    await Promise.all(threads.map((t) => t.worker.terminate()));
  }

  #pick(): Thread {
    const idlest = this.#threads.reduce<Thread | null>((a, t) => (a && a.jobs.size <= t.jobs.size ? a : t), null);
    if (idlest && (idlest.jobs.size === 0 || this.#threads.length >= this.#size)) return idlest;
    return this.#spawn();
  }

  #spawn(): Thread {
    const thread: Thread = { worker: new Worker(THREAD_URL), jobs: new Map() };
    thread.worker.unref();
    this.#threads.push(thread);
    const lost = (error: Error) => {
      const at = this.#threads.indexOf(thread);
      if (at !== -1) this.#threads.splice(at, 1);
      for (const job of [...thread.jobs.values()]) job.reject(error);
    };
    thread.worker.on("error", lost);
    thread.worker.on("exit", (code) => lost(new Error(`An upload thread stopped (exit code ${code})`)));
    thread.worker.on("message", (message: FromRowThread) => {
      const job = thread.jobs.get(message.job);
      if (!job) return;
      if (message.type === "more") void feed(thread, message.job, job);
      else if (message.type === "rows") {
        const { range, copy, rows, claimed } = message;
        job.writing = job.writing.then(() => job.onRows({ range, copy, rows, claimed }));
        job.writing.catch((error) => job.reject(error));
      } else if (message.type === "done") {
        const rows = { ids: PackedIds.of(message.ids, message.count), columns: new ColumnCounts(message.columns) };
        job.writing.then(() => job.resolve(rows), () => {});
      } else {
        const { status, detail } = message;
        const error = status === null ? new Error(message.message) : new HttpError(status, detail);
        // The spool's last writes end before the caller closes it.
        job.writing.finally(() => job.reject(error)).catch(() => {});
      }
    });
    return thread;
  }
}

const send = (thread: Thread, message: ToRowThread, transfer: ArrayBuffer[] = []) =>
  thread.worker.postMessage(message, transfer);

/** Sends the file's next piece (a copy the thread owns), or its end; a body that fails fails the upload with it. */
async function feed(thread: Thread, id: number, job: Job) {
  try {
    const next = await job.content.next();
    if (!thread.jobs.has(id)) return;
    if (next.done) return send(thread, { type: "end", job: id });
    const bytes = new Uint8Array(next.value);
    send(thread, { type: "chunk", job: id, bytes }, [bytes.buffer as ArrayBuffer]);
  } catch (error) {
    job.writing.finally(() => job.reject(error)).catch(() => {});
  }
}
