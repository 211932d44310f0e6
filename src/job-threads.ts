import { Worker } from "node:worker_threads";

/** A job a thread holds until it answers it, or until the thread is lost. */
export interface ThreadJob {
  reject(error: unknown): void;
}

/** A worker and the jobs it holds, by id. */
export interface JobThread<J extends ThreadJob> {
  readonly worker: Worker;
  readonly jobs: Map<number, J>;
  /** Set while the thread holds no job: when it fires, the thread is stopped. */
  idle?: NodeJS.Timeout;
}

/**
 * How long a thread with no job is kept. A thread's heap keeps what its last big job grew (the server runs without
 * V8's memory reducer, server-flags.ts): two OTLP threads held about 160 MB after 300,000 spans until stopped.
 */
export const THREAD_IDLE_MS = 10_000;

/**
 * Worker threads (`url`) that take jobs by id and answer messages naming them. A job goes to the thread with the
 * fewest; threads start with the first jobs, up to `size`; one that dies fails only its own jobs, and the next job
 * starts another; one left without a job for `idleMs` is stopped (its memory goes with it) and the next job
 * starts another. `onMessage` gets each message with the job it names (still held: it deletes what it settles).
 */
export class JobThreads<J extends ThreadJob, M extends { job: number }> {
  readonly #url: URL;
  readonly #size: number;
  readonly #name: string;
  readonly #onMessage: (thread: JobThread<J>, job: J, message: M) => void;
  readonly #idleMs: number;
  readonly #threads: JobThread<J>[] = [];
  #next = 0;

  constructor(
    url: URL, size: number, name: string, onMessage: (thread: JobThread<J>, job: J, message: M) => void,
    idleMs = THREAD_IDLE_MS,
  ) {
    this.#idleMs = idleMs;
    this.#url = url;
    this.#size = Math.max(1, size);
    this.#name = name;
    this.#onMessage = onMessage;
  }

  /** Gives `job` to a thread; the caller sends it its work under `id`. */
  add(job: J): { id: number; thread: JobThread<J> } {
    const thread = this.#pick();
    const id = this.#next++;
    clearTimeout(thread.idle);
    thread.jobs.set(id, job);
    return { id, thread };
  }

  async close(): Promise<void> {
    const threads = this.#threads.splice(0);
    for (const thread of threads) clearTimeout(thread.idle);
    await Promise.all(threads.map((t) => t.worker.terminate()));
  }

  #pick(): JobThread<J> {
    const idlest = this.#threads.reduce<JobThread<J> | null>((a, t) => (a && a.jobs.size <= t.jobs.size ? a : t), null);
    if (idlest && (idlest.jobs.size === 0 || this.#threads.length >= this.#size)) return idlest;
    return this.#spawn();
  }

  #spawn(): JobThread<J> {
    const thread: JobThread<J> = { worker: new Worker(this.#url), jobs: new Map() };
    thread.worker.unref();
    this.#threads.push(thread);
    const lost = (error: Error) => {
      const at = this.#threads.indexOf(thread);
      if (at !== -1) this.#threads.splice(at, 1);
      for (const job of [...thread.jobs.values()]) job.reject(error);
      thread.jobs.clear();
    };
    thread.worker.on("error", lost);
    thread.worker.on("exit", (code) => lost(new Error(`${this.#name} stopped (exit code ${code})`)));
    thread.worker.on("message", (message: M) => {
      const job = thread.jobs.get(message.job);
      if (job) this.#onMessage(thread, job, message);
      if (thread.jobs.size > 0) return;
      clearTimeout(thread.idle);
      thread.idle = setTimeout(() => this.#stop(thread), this.#idleMs).unref();
    });
    return thread;
  }

  #stop(thread: JobThread<J>): void {
    const at = this.#threads.indexOf(thread);
    if (at === -1 || thread.jobs.size > 0) return;
    this.#threads.splice(at, 1);
    void thread.worker.terminate();
  }
}
