import { MessageChannel } from "node:worker_threads";
import { HttpError } from "../errors.ts";
import { type JobThread, JobThreads } from "../job-threads.ts";
import { ColumnCounts } from "./columns.ts";
import type { FileType } from "./import.ts";
import { cellLimit, rowLimit } from "./limits.ts";
import type { RowBlock, RowOwner } from "./row-block.ts";
import type { FromRowThread, ToRowThread } from "./row-messages.ts";
import { PackedIds } from "./testcases.ts";

const THREAD_URL = new URL("./row-thread.ts", import.meta.url);

/**
 * An upload's rows as the threads identified them: packed ids in file order, the data columns counted, and the hashes
 * of the chunks whose rows carry their chunk's key (see row-thread.ts).
 */
export interface IdentifiedRows {
  ids: PackedIds;
  columns: ColumnCounts;
  homes: Set<string>;
}

/** Either job of an upload (see row-thread.ts): the parse job reads `content`, the identify job answers the rows. */
interface Job {
  content?: AsyncIterator<Uint8Array>;
  /** The spool's writes, chained: blocks reach it in the order the thread sent them. */
  writing: Promise<void>;
  onRows(block: RowBlock): Promise<void>;
  resolve(rows: IdentifiedRows): void;
  reject(error: unknown): void;
}

type Thread = JobThread<Job>;

/**
 * Threads that do an upload's row work (row-thread.ts): parsing, canonical JSON, the two hashes of each row and its
 * COPY line, off the thread that answers requests and (on the embedded database) runs every query. An upload's
 * parsing and its identifying go to two threads (`size` at most, shared by concurrent uploads), so one upload uses
 * two cores.
 */
export class RowPool {
  readonly #threads: JobThreads<Job, FromRowThread>;

  constructor(size: number) {
    this.#threads = new JobThreads(THREAD_URL, size, "An upload thread", (thread, job, message) => {
      if (message.type === "more") void feed(thread, message.job, job);
      else if (message.type === "parsed") thread.jobs.delete(message.job);
      else if (message.type === "rows") {
        const { range, copy, claimed } = message;
        job.writing = job.writing.then(() => job.onRows({ range, copy, claimed }));
        job.writing.catch((error) => job.reject(error));
      } else if (message.type === "done") {
        const ids = PackedIds.of(message.ids, message.count);
        const rows = { ids, columns: new ColumnCounts(message.columns), homes: new Set(message.homes) };
        job.writing.then(() => job.resolve(rows), () => {});
      } else {
        const { status, detail } = message;
        job.reject(status === null ? new Error(message.message) : new HttpError(status, detail));
      }
    });
  }

  /**
   * Streams `content` to a thread and hands each block of its rows to `onRows`, in order; settles with the ids and
   * columns, or with the parser's error (the same `HttpError` as `readRows` would throw here).
   */
  identify(
    content: AsyncIterable<Uint8Array>, fileType: FileType, owner: RowOwner, onRows: (block: RowBlock) => Promise<void>,
  ): Promise<IdentifiedRows> {
    return new Promise<IdentifiedRows>((resolve, reject) => {
      let settled = false;
      // Either job's end ends both: the other is stopped (a parse that failed, a spool that could not be written).
      const end = () => {
        settled = true;
        for (const { id, thread } of [parsing, identifying]) {
          if (thread.jobs.delete(id)) send(thread, { type: "abort", job: id });
        }
      };
      // The spool's last writes end before the caller closes it.
      const fail = (error: unknown) => {
        if (settled) return;
        end();
        identifier.writing.finally(() => reject(error)).catch(() => {});
      };
      const identifier: Job = {
        writing: Promise.resolve(), onRows, reject: fail,
        resolve: (rows) => {
          if (settled) return;
          end();
          resolve(rows);
        },
      };
      // The parse job only reads the file; its end is the identify job's.
      const parsing = this.#threads.add({ ...identifier, content: content[Symbol.asyncIterator]() });
      const identifying = this.#threads.add(identifier);
      const { port1, port2 } = new MessageChannel();
      const limits = { row: rowLimit(), cell: cellLimit() };
      send(parsing.thread, { type: "parse", job: parsing.id, fileType, limits, port: port1 }, [port1]);
      send(identifying.thread, { type: "identify", job: identifying.id, owner, port: port2 }, [port2]);
    });
  }

  close(): Promise<void> {
    return this.#threads.close();
  }
}

const send = (thread: Thread, message: ToRowThread, transfer: Transferable[] = []) =>
  thread.worker.postMessage(message, transfer as never);

/** Sends the file's next piece (a copy the thread owns), or its end; a body that fails fails the upload with it. */
async function feed(thread: Thread, id: number, job: Job) {
  try {
    const next = await job.content!.next();
    if (!thread.jobs.has(id)) return;
    if (next.done) return send(thread, { type: "end", job: id });
    const bytes = new Uint8Array(next.value);
    send(thread, { type: "chunk", job: id, bytes }, [bytes.buffer as ArrayBuffer]);
  } catch (error) {
    job.reject(error);
  }
}
