import { Worker } from "node:worker_threads";
import type { Scope } from "../../accounts/scope.ts";
import { HttpError } from "../../errors.ts";
import type { FromExportThread } from "./export-messages.ts";

const THREAD_URL = new URL("./export-thread.ts", import.meta.url);

/** An export request as an OTLP thread read it: its spans' COPY chunks (UTF-8) and how many spans were left out. */
export interface ReadExport {
  chunks: Buffer[];
  rejected: number;
}

interface Job {
  resolve(read: ReadExport): void;
  reject(error: unknown): void;
}

interface Thread {
  worker: Worker;
  jobs: Map<number, Job>;
}

/**
 * Threads that read OTLP export requests (export-thread.ts). Each request goes to the thread with the fewest;
 * threads start with the first requests, and one that dies fails only its own requests.
 */
export class ExportPool {
  readonly #size: number;
  readonly #threads: Thread[] = [];
  #next = 0;

  constructor(size: number) {
    this.#size = Math.max(1, size);
  }

  /** The request's spans as COPY chunks for `storeSpanChunks`, or the `HttpError` that `exportSpans` throws. */
  read(
    body: Buffer, protobuf: boolean, maxInflated: number, scope: Scope, copyBytes: number | undefined,
  ): Promise<ReadExport> {
    const thread = this.#pick();
    const job = this.#next++;
    return new Promise<ReadExport>((resolve, reject) => {
      thread.jobs.set(job, { resolve, reject });
      thread.worker.postMessage({ job, body, protobuf, maxInflated, scope, copyBytes });
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
      for (const job of thread.jobs.values()) job.reject(error);
      thread.jobs.clear();
    };
    thread.worker.on("error", lost);
    thread.worker.on("exit", (code) => lost(new Error(`An OTLP thread stopped (exit code ${code})`)));
    thread.worker.on("message", (message: FromExportThread) => {
      const job = thread.jobs.get(message.job);
      if (!job) return;
      thread.jobs.delete(message.job);
      if (message.type === "read") {
        job.resolve({ chunks: message.chunks.map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength)),
          rejected: message.rejected });
      } else {
        const { status, detail } = message;
        job.reject(status === null ? new Error(message.message) : new HttpError(status, detail));
      }
    });
    return thread;
  }
}
