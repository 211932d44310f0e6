import { describe, expect, it } from "vitest";
import { JobThreads } from "../src/job-threads.ts";
import type { FromExportThread, ToExportThread } from "../src/tracing/otlp/export-messages.ts";
import { attributes, exportRequest, nanos, randomHex } from "./tracing/otlp-support.ts";

// Threads that have nothing to do are stopped, so that the memory their last big job grew goes back; the next job
// starts a thread again.

const THREAD_URL = new URL("../src/tracing/otlp/export-thread.ts", import.meta.url);
const scope = { projectId: "00000000-0000-7000-8000-000000000001", userId: null };

describe("job threads", () => {
  it("stop a thread left without a job, and start one for the next job", async () => {
    const answers: FromExportThread["type"][] = [];
    const threads = new JobThreads<{ reject(error: unknown): void; done(): void }, FromExportThread>(
      THREAD_URL, 1, "A test thread", (thread, job, message) => {
        thread.jobs.delete(message.job);
        answers.push(message.type);
        job.done();
      }, 200,
    );
    const read = () => new Promise<{ exited: Promise<number> }>((resolve, reject) => {
      const { id, thread } = threads.add({ reject, done: () => resolve({ exited: new Promise((r) => thread.worker.once("exit", r)) }) });
      const body = exportRequest([{ traceId: randomHex(16), spanId: randomHex(8), name: "s", start: nanos(), end: nanos(1),
        attributes: attributes({ "ag.type.node": "task" }) }]);
      const message: ToExportThread = { job: id, body, protobuf: true, maxInflated: 1 << 20, scope, copyBytes: undefined };
      thread.worker.postMessage(message);
    });
    const first = await read();
    await first.exited;
    await read();
    expect(answers).toEqual(["read", "read"]);
    await threads.close();
  });

  it("keep a thread that gets a job before its idle time is up", async () => {
    let exits = 0;
    const threads = new JobThreads<{ reject(error: unknown): void; done(): void }, FromExportThread>(
      THREAD_URL, 1, "A test thread", (thread, job, message) => {
        thread.jobs.delete(message.job);
        job.done();
      }, 2000,
    );
    const read = () => new Promise<void>((resolve, reject) => {
      const { id, thread } = threads.add({ reject, done: resolve });
      thread.worker.once("exit", () => exits++);
      const body = exportRequest([{ traceId: randomHex(16), spanId: randomHex(8), name: "s", start: nanos(), end: nanos(1) }]);
      thread.worker.postMessage({ job: id, body, protobuf: true, maxInflated: 1 << 20, scope, copyBytes: undefined });
    });
    for (let i = 0; i < 4; i++) {
      await read();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(exits).toBe(0);
    await threads.close();
  });
});
