import { SHARE_ENV, Worker } from "node:worker_threads";
import { THREAD_IDLE_MS } from "../../job-threads.ts";
import type { SandboxPool } from "../../runtime/code/sandbox-pool.ts";
import { WorkflowError } from "../../runtime/errors.ts";
import type { TraceWriter } from "../../traces/trace-writer.ts";
import type { BatchCells, BatchWork } from "./batch-cells.ts";
import type { FromCellThread, SandboxOutcome, ToCellThread } from "./cell-messages.ts";

const THREAD_URL = new URL("./cell-thread.ts", import.meta.url);

interface Waiting {
  projectId: string;
  resolve(computed: BatchCells): void;
  reject(error: Error): void;
}

/**
 * The main thread's end of the evaluation thread (cell-thread.ts), which this process's batches invoke on: provider
 * calls, templates, evaluators and traces take that thread's time, so that the main thread's goes to requests and to
 * the database (on the embedded database, its queries run on the main thread). The thread starts with the first batch
 * and starts again with the next one if it dies; the batches it was running fail, and their jobs are tried again.
 * Left without a batch for `THREAD_IDLE_MS`, it is stopped, and its heap (about 115 MB after a large run) goes with it.
 */
export class CellInvoker {
  readonly #sandbox: SandboxPool | undefined;
  readonly #traces: TraceWriter | undefined;
  readonly #waiting = new Map<number, Waiting>();
  #thread: Worker | null = null;
  #idle: NodeJS.Timeout | undefined;
  #next = 0;

  constructor(sandbox: SandboxPool | undefined, traces: TraceWriter | undefined) {
    this.#sandbox = sandbox;
    this.#traces = traces;
  }

  /** The batch's cells, once invoked; its traces are handed to the trace writer first. */
  run(work: BatchWork, signal: AbortSignal): Promise<BatchCells> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const thread = this.#thread ?? this.#start();
    clearTimeout(this.#idle);
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      const abort = () => send(thread, { type: "abort", id, message: (signal.reason as Error)?.message ?? "aborted" });
      signal.addEventListener("abort", abort, { once: true });
      const settled = () => {
        signal.removeEventListener("abort", abort);
        this.#waiting.delete(id);
        if (this.#waiting.size === 0) this.#idle = setTimeout(() => this.#stopIdle(thread), THREAD_IDLE_MS).unref();
      };
      this.#waiting.set(id, {
        projectId: work.scope.projectId,
        resolve: (computed) => (settled(), resolve(computed)),
        reject: (error) => (settled(), reject(error)),
      });
      send(thread, { type: "batch", id, work, sandbox: this.#sandbox !== undefined });
    });
  }

  async close(): Promise<void> {
    clearTimeout(this.#idle);
    await this.#thread?.terminate();
  }

  #stopIdle(thread: Worker): void {
    if (this.#thread !== thread || this.#waiting.size > 0) return;
    this.#thread = null;
    void thread.terminate();
  }

  #start(): Worker {
    // The thread reads provider settings (OPENAI_BASE_URL, keys) from the environment, as the main thread does.
    // A young generation of 8 MB: the thread's garbage is short-lived, and its heap stayed at about 115 MB instead of
    // 200 MB in a 100,000-testcase run, at the same speed. A server's --max-semi-space-size (server-flags.ts) sizes
    // every thread's instead (V8 reads the flag over this limit); processes without it (the tests) keep this one.
    const thread = new Worker(THREAD_URL, { env: SHARE_ENV, resourceLimits: { maxYoungGenerationSizeMb: 8 } });
    thread.unref();
    this.#thread = thread;
    const lost = (error: Error) => {
      if (this.#thread === thread) this.#thread = null;
      for (const waiting of [...this.#waiting.values()]) waiting.reject(error);
    };
    thread.on("error", lost);
    thread.on("exit", (code) => lost(new Error(`The evaluation thread stopped (exit code ${code})`)));
    thread.on("message", (message: FromCellThread) => {
      if (message.type === "sandbox") return this.#runCode(thread, message);
      const waiting = this.#waiting.get(message.id);
      if (message.type === "failed") return waiting?.reject(new Error(message.message));
      this.#traces?.addRows(message.traces, message.count);
      waiting?.resolve(message.computed);
    });
    return thread;
  }

  /** Custom code a batch runs, in the sandbox pool for its project. */
  #runCode(thread: Worker, call: Extract<FromCellThread, { type: "sandbox" }>): void {
    const reply = (outcome: SandboxOutcome) => send(thread, { type: "sandbox", call: call.call, ...outcome });
    const projectId = this.#waiting.get(call.batch)?.projectId;
    if (!projectId || !this.#sandbox) return reply({ internal: "The batch that ran this code has ended" });
    this.#sandbox.run(projectId, call.script, call.entries, call.limits).then(
      (result) => reply({ result }),
      (error: unknown) => reply(error instanceof WorkflowError
        ? { failure: { statusCode: error.statusCode, type: error.type, message: error.message, ...retryAfter(error) } }
        : { internal: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
    );
  }
}

const send = (thread: Worker, message: ToCellThread) => thread.postMessage(message);
const retryAfter = ({ retryAfterSeconds }: WorkflowError) => (retryAfterSeconds ? { retryAfterSeconds } : {});
