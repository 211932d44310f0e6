import { Worker } from "node:worker_threads";
import { ERROR_TYPES, WorkflowError } from "../errors.ts";
import { codeMemoryLimit, codeTimeLimit } from "./sandbox.ts";
import type { EntryPoint, RunSandbox, SandboxLimits, SandboxResult } from "./sandbox.ts";
import type { SandboxJob, SandboxReply } from "./sandbox-messages.ts";

export interface SandboxPoolOptions {
  /** Sandbox threads at most (TESSERA_SANDBOX_WORKERS). */
  workers: number;
  /** Runs of one project at the same time (TESSERA_SANDBOX_PROJECT_CONCURRENCY). */
  projectConcurrency: number;
  /** Runs of one project waiting for a thread (TESSERA_SANDBOX_PROJECT_QUEUE_LIMIT). */
  projectQueueLimit: number;
  /** Runs of all projects waiting for a thread (TESSERA_SANDBOX_QUEUE_LIMIT). */
  queueLimit: number;
}

/**
 * How long past its own deadline a run may keep its thread before the thread is terminated. The
 * interrupt handler normally stops it first; the deadline inside the thread starts once QuickJS is
 * instantiated, a little after the thread reports that it has the run.
 */
export const SANDBOX_GRACE_MS = 500;
/**
 * A run's limit counts its thread's CPU time, and sandbox threads run at the lowest priority (they take only
 * what the thread answering every project's requests leaves): a run may take this many times its limit in wall
 * time before its thread is terminated, so one that never gets a fifth of a core on a busy machine still ends.
 */
export const SANDBOX_WALL_FACTOR = 5;

interface Job {
  id: number;
  projectId: string;
  script: string;
  entries: EntryPoint[];
  limits: SandboxLimits;
  resolve: (result: SandboxResult | null) => void;
  reject: (error: unknown) => void;
}

interface Slot {
  worker: Worker | null;
  job: Job | null;
  watchdog: NodeJS.Timeout | null;
}

interface ProjectLoad {
  running: number;
  waiting: Job[];
}

const WORKER_URL = new URL("./sandbox-worker.ts", import.meta.url);

const busy = (message: string, retryAfterSeconds: number) => {
  const error = new WorkflowError(429, ERROR_TYPES.codeBusy, message);
  error.retryAfterSeconds = retryAfterSeconds;
  return error;
};

/**
 * Custom code runs in a bounded pool of worker threads, so a script holds a sandbox thread and never
 * the event loop. Threads start on the first run and are replaced when one has to be terminated.
 * Projects take turns: waiting runs are handed out round-robin across projects, each project holds at
 * most `projectConcurrency` threads, and a run that would wait beyond a queue limit is refused with 429.
 */
export class SandboxPool {
  readonly options: SandboxPoolOptions;
  readonly #slots: Slot[];
  readonly #projects = new Map<string, ProjectLoad>();
  /** Projects with waiting runs, in turn order. */
  readonly #turns = new Set<string>();
  #waiting = 0;
  #nextId = 0;
  #closed = false;

  constructor(options: SandboxPoolOptions) {
    this.options = options;
    const empty = (): Slot => ({ worker: null, job: null, watchdog: null });
    this.#slots = Array.from({ length: Math.max(1, options.workers) }, empty);
  }

  /** Threads alive now: 0 until code first runs, and again after close. */
  get threads(): number {
    return this.#slots.filter((slot) => slot.worker !== null).length;
  }

  /** Runs waiting for a thread, across projects. */
  get waiting(): number {
    return this.#waiting;
  }

  /** A `RunSandbox` on behalf of one project. */
  runner(projectId: string): RunSandbox {
    return (script, entries, limits) => this.run(projectId, script, entries, limits);
  }

  /** Runs `script` in a sandbox thread (see `runInSandbox`), or refuses with 429 when the queue is full. */
  async run(
    projectId: string,
    script: string,
    entries: EntryPoint[],
    limits: SandboxLimits,
  ): Promise<SandboxResult | null> {
    if (this.#closed) throw new WorkflowError(503, ERROR_TYPES.codeBusy, "The code sandbox is shut down");
    const load = this.#projects.get(projectId) ?? { running: 0, waiting: [] };
    const { projectConcurrency, projectQueueLimit, queueLimit } = this.options;
    const startsNow = load.running < projectConcurrency && this.#slots.some((slot) => slot.job === null);
    if (!startsNow && load.waiting.length >= projectQueueLimit) {
      throw busy(
        `Too many code runs waiting in this project: at most ${projectQueueLimit} may wait ` +
          `(TESSERA_SANDBOX_PROJECT_QUEUE_LIMIT) behind ${projectConcurrency} running ` +
          "(TESSERA_SANDBOX_PROJECT_CONCURRENCY)",
        Math.ceil(((load.waiting.length / projectConcurrency) * limits.timeMs) / 1000) || 1,
      );
    }
    if (!startsNow && this.#waiting >= queueLimit) {
      throw busy(
        `Too many code runs waiting: at most ${queueLimit} may wait across projects (TESSERA_SANDBOX_QUEUE_LIMIT)`,
        Math.ceil(((this.#waiting / this.#slots.length) * limits.timeMs) / 1000) || 1,
      );
    }
    return new Promise((resolve, reject) => {
      this.#projects.set(projectId, load);
      load.waiting.push({ id: this.#nextId++, projectId, script, entries, limits, resolve, reject });
      this.#waiting++;
      this.#turns.add(projectId);
      this.#dispatch();
    });
  }

  /** Refuses waiting runs, terminates every thread (failing what runs on it) and accepts no more runs. */
  async close(): Promise<void> {
    this.#closed = true;
    const closing = new WorkflowError(503, ERROR_TYPES.codeBusy, "The server is shutting down");
    for (const load of this.#projects.values()) for (const job of load.waiting.splice(0)) job.reject(closing);
    this.#waiting = 0;
    this.#turns.clear();
    await Promise.all(this.#slots.map((slot) => {
      const job = slot.job;
      const stopped = this.#retire(slot);
      job?.reject(closing);
      return stopped;
    }));
  }

  /** Hands waiting runs to free threads, one project's turn at a time. */
  #dispatch(): void {
    for (const slot of this.#slots) {
      if (slot.job !== null) continue;
      const job = this.#nextJob();
      if (!job) return;
      this.#start(slot, job);
    }
  }

  #nextJob(): Job | undefined {
    for (const projectId of this.#turns) {
      const load = this.#projects.get(projectId)!;
      if (load.running >= this.options.projectConcurrency) continue;
      const job = load.waiting.shift()!;
      this.#waiting--;
      this.#turns.delete(projectId);
      if (load.waiting.length > 0) this.#turns.add(projectId); // to the back of the line
      load.running++;
      return job;
    }
    return undefined;
  }

  #start(slot: Slot, job: Job): void {
    slot.job = job;
    const worker = (slot.worker ??= this.#spawn(slot));
    worker.ref();
    const message: SandboxJob = { id: job.id, script: job.script, entries: job.entries, limits: job.limits };
    worker.postMessage(message);
  }

  /** Arms the watchdog once the thread has the run: past deadline and grace, the thread goes. */
  #watch(slot: Slot, job: Job): void {
    slot.watchdog = setTimeout(() => {
      // The interrupt handler did not stop the script in time: the slot gets a new thread.
      void this.#retire(slot);
      this.#finish(slot, job, () => job.reject(codeTimeLimit(job.limits.timeMs)));
    }, job.limits.timeMs * SANDBOX_WALL_FACTOR + SANDBOX_GRACE_MS);
  }

  #spawn(slot: Slot): Worker {
    const worker = new Worker(WORKER_URL);
    worker.on("message", (reply: SandboxReply) => {
      const job = slot.job;
      if (slot.worker !== worker || !job || job.id !== reply.id) return;
      if ("started" in reply) return this.#watch(slot, job);
      this.#finish(slot, job, () => {
        if ("result" in reply) job.resolve(reply.result);
        else if ("internal" in reply) job.reject(new Error(`Sandbox thread failed: ${reply.internal}`));
        else job.reject(new WorkflowError(reply.failure.statusCode, reply.failure.type, reply.failure.message));
      });
    });
    const lost = (error: unknown) => {
      if (slot.worker !== worker) return;
      slot.worker = null;
      const job = slot.job;
      if (!job) return;
      const outOfMemory = (error as { code?: unknown } | null)?.code === "ERR_WORKER_OUT_OF_MEMORY";
      this.#finish(slot, job, () => job.reject(outOfMemory ? codeMemoryLimit(job.limits.memoryBytes) : error));
    };
    worker.on("error", lost);
    worker.on("exit", (code) => lost(new Error(`Sandbox thread exited with code ${code}`)));
    return worker;
  }

  /** Frees the slot and the project's share, settles the run, then lets the next one start. */
  #finish(slot: Slot, job: Job, settle: () => void): void {
    if (slot.watchdog) clearTimeout(slot.watchdog);
    slot.watchdog = null;
    slot.job = null;
    // An idle thread must not keep the process alive.
    slot.worker?.unref();
    const load = this.#projects.get(job.projectId)!;
    load.running--;
    if (load.running === 0 && load.waiting.length === 0) this.#projects.delete(job.projectId);
    settle();
    if (!this.#closed) this.#dispatch();
  }

  /** Terminates the slot's thread; the slot starts a new one when it next gets a run. */
  async #retire(slot: Slot): Promise<void> {
    const worker = slot.worker;
    slot.worker = null;
    if (slot.watchdog) clearTimeout(slot.watchdog);
    slot.watchdog = null;
    slot.job = null;
    if (worker) await worker.terminate();
  }
}
