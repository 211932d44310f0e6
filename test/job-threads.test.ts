import { describe, expect, it } from "vitest";
import { JobThreads } from "../src/job-threads.ts";
import type { FromExportThread, ToExportThread } from "../src/tracing/otlp/export-messages.ts";
import { attributes, exportRequest, nanos, randomHex } from "./tracing/otlp-support.ts";

// Threads that have nothing to do are stopped, so that the memory their last big job grew goes back; the next job
// starts a thread again.

const THREAD_URL = new URL("../src/tracing/otlp/export-thread.ts", import.meta.url);
const scope = { projectId: "00000000-0000-7000-8000-000000000001", userId: null };
type Job = { reject(error: unknown): void; done(): void };

/** OTLP threads (export-thread.ts) stopped after `idleMs` without a job. */
const exportThreads = (idleMs: number) => new JobThreads<Job, FromExportThread>(
  THREAD_URL, 1, "A test thread", (thread, job, message) => {
    thread.jobs.delete(message.job);
    job.done();
  }, idleMs,
);

/** One export request read by a thread of `threads`; resolves with that thread's worker once answered. */
function read(threads: JobThreads<Job, FromExportThread>) {
  return new Promise<import("node:worker_threads").Worker>((resolve, reject) => {
    const { id, thread } = threads.add({ reject, done: () => resolve(thread.worker) });
    const span = { traceId: randomHex(16), spanId: randomHex(8), name: "s", start: nanos(), end: nanos(1) };
    const body = exportRequest([{ ...span, attributes: attributes({ "ag.type.node": "task" }) }]);
    const message: ToExportThread = {
      job: id, body, protobuf: true, maxInflated: 1 << 20, scope, copyBytes: undefined,
    };
    thread.worker.postMessage(message);
  });
}

describe("job threads", () => {
  it("stop a thread left without a job, and start one for the next job", async () => {
    const threads = exportThreads(500);
    const first = await read(threads);
    // A worker's threadId is -1 once it has stopped.
    if (first.threadId !== -1) await new Promise((resolve) => first.once("exit", resolve));
    const second = await read(threads);
    expect(second.threadId).not.toBe(first.threadId);
    await threads.close();
  });

  it("keep a thread that gets a job before its idle time is up", async () => {
    const threads = exportThreads(2000);
    const workers = new Set<number>();
    for (let i = 0; i < 4; i++) {
      workers.add((await read(threads)).threadId);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(workers.size).toBe(1);
    await threads.close();
  });
});
