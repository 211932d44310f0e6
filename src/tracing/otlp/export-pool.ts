import type { Scope } from "../../accounts/scope.ts";
import { HttpError } from "../../errors.ts";
import { JobThreads } from "../../job-threads.ts";
import type { FromExportThread, ToExportThread } from "./export-messages.ts";

const THREAD_URL = new URL("./export-thread.ts", import.meta.url);

/** An export request as an OTLP thread read it: its spans' COPY chunks (binary) and how many spans were left out. */
export interface ReadExport {
  chunks: Buffer[];
  rejected: number;
}

interface Job {
  resolve(read: ReadExport): void;
  reject(error: unknown): void;
}

/** Threads that read OTLP export requests (export-thread.ts), `size` at most. */
export class ExportPool {
  readonly #threads: JobThreads<Job, FromExportThread>;

  constructor(size: number) {
    this.#threads = new JobThreads(THREAD_URL, size, "An OTLP thread", (thread, job, message) => {
      thread.jobs.delete(message.job);
      if (message.type === "read") {
        job.resolve({ chunks: message.chunks.map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength)),
          rejected: message.rejected });
      } else {
        const { status, detail } = message;
        job.reject(status === null ? new Error(message.message) : new HttpError(status, detail));
      }
    });
  }

  /**
   * The request's spans as COPY chunks for `storeSpanChunks`, or the `HttpError` that `exportSpans` throws. A body
   * that owns its memory (one read whole is: Buffer.concat allocates it) is handed to the thread, not copied, and
   * is empty here afterwards.
   */
  read(
    body: Buffer, protobuf: boolean, maxInflated: number, scope: Scope, copyBytes: number | undefined,
  ): Promise<ReadExport> {
    return new Promise<ReadExport>((resolve, reject) => {
      const { id, thread } = this.#threads.add({ resolve, reject });
      const message: ToExportThread = { job: id, body, protobuf, maxInflated, scope, copyBytes };
      const { buffer } = body;
      const owned = buffer instanceof ArrayBuffer && body.byteOffset === 0 && body.byteLength === buffer.byteLength;
      thread.worker.postMessage(message, owned ? [buffer] : []);
    });
  }

  close(): Promise<void> {
    return this.#threads.close();
  }
}
