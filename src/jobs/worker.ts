import type { Database } from "../db/database.ts";
import { claim, complete, fail, type Job, JOBS_CHANNEL, release, releaseOrphans, renew } from "./queue.ts";

/** What a worker does with the jobs of one queue. */
export interface JobHandler<P = unknown> {
  queue: string;
  /** Does the work; `signal` aborts when the lease is lost or the worker stops. Resolving completes the job. */
  run(job: Job<P>, signal: AbortSignal): Promise<void>;
  /** Called once for a job that will not be tried again, with its last error, before it is marked failed. */
  giveUp?(job: Job<P>, error: unknown): Promise<void>;
  /** Releases what the handler holds (a thread), once the worker has stopped and its jobs have settled. */
  close?(): Promise<void>;
}

export interface JobWorkerOptions {
  /** Jobs run at once by this process, across all queues. */
  concurrency: number;
  /** Jobs of one queue that one project may hold at once, across all processes (see `claim`); null: no cap. */
  projectLimit?: number | null;
  leaseMs: number;
  /** How often to look for due work when no notification came (retries, expired leases). */
  pollMs: number;
  /** Longest wait before the first retry of a failed attempt; later ones wait twice as long each time. */
  retryBaseMs?: number;
  onError?: (error: unknown) => void;
}

/** An error that says when to try again (a provider's 429 with its Retry-After), or never (`retryAfterMs: null`). */
export interface RetryHint {
  retryAfterMs?: number | null;
}

const MAX_RETRY_MS = 5 * 60_000;

/**
 * Claims and runs jobs in this process: wakes on NOTIFY from `enqueue` (any process) and polls for the
 * rest, keeps at most `concurrency` jobs running (claimed project by project, each project within
 * `projectLimit`), renews each lease while its job runs, and retries failed attempts with exponential
 * backoff until the job's `maxAttempts`. `stop()` claims nothing more, aborts what runs and hands it
 * back, so another process takes it over at once.
 */
export class JobWorker {
  readonly #db: Database;
  readonly #handlers: JobHandler<never>[];
  readonly #options: Required<JobWorkerOptions>;
  readonly #running = new Map<string, AbortController>();
  readonly #settled = new Set<Promise<void>>();
  #next = 0;
  /**
   * Queues a claim found nothing more to take from (it came back short), left out of claims until a notification
   * names them, one of their jobs ends or the poll comes: a job's end would otherwise claim from every queue.
   */
  readonly #idle = new Set<string>();
  /** Wake-ups of each queue so far: a claim that came back short leaves its queue idle only if none came meanwhile. */
  readonly #wakes = new Map<string, number>();
  #timer: NodeJS.Timeout | null = null;
  #unlisten: (() => Promise<void>) | null = null;
  #stopped = true;
  #polling: Promise<void> | null = null;
  #again = false;

  constructor(db: Database, handlers: JobHandler<never>[], options: JobWorkerOptions) {
    this.#db = db;
    this.#handlers = handlers;
    this.#options = { retryBaseMs: 1000, projectLimit: null, onError: () => {}, ...options };
  }

  /** How many jobs this process is running now. */
  get active(): number {
    return this.#running.size;
  }

  async start(): Promise<void> {
    if (!this.#stopped) return;
    this.#stopped = false;
    // The embedded database belongs to one process: whatever it finds running was left by a process that died.
    if (this.#db.driver === "pglite") await releaseOrphans(this.#db, this.#handlers.map((handler) => handler.queue));
    // `enqueue` names each queue it added to: another worker's queue wakes nothing here, a nameless notice all.
    const ours = new Set(this.#handlers.map((handler) => handler.queue));
    this.#unlisten = await this.#db.listen(JOBS_CHANNEL, (queue) => {
      if (!queue) this.wake();
      else if (ours.has(queue)) this.wake([queue]);
    });
    this.#schedule();
    this.wake();
  }

  /** Looks for work of `queues` (all of this worker's by default) now, and of any other queue that may have some. */
  wake(queues: Iterable<string> = this.#handlers.map((handler) => handler.queue)): void {
    for (const queue of queues) {
      this.#idle.delete(queue);
      this.#wakes.set(queue, (this.#wakes.get(queue) ?? 0) + 1);
    }
    this.#look();
  }

  /** Claims from the queues that may have work, now or (a claim being under way) right after it. */
  #look(): void {
    if (this.#stopped) return;
    if (this.#polling) {
      this.#again = true;
      return;
    }
    this.#polling = this.#fill().catch(this.#options.onError).finally(() => {
      this.#polling = null;
      if (this.#again) {
        this.#again = false;
        this.#look();
      }
    });
  }

  /** Stops claiming, aborts running jobs and releases them for another process; resolves when all have settled. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#unlisten?.().catch(() => {});
    await this.#polling;
    for (const controller of this.#running.values()) controller.abort(new Error("the server is stopping"));
    await Promise.allSettled([...this.#settled]);
    await Promise.all(this.#handlers.map((handler) => handler.close?.()));
  }

  #schedule(): void {
    this.#timer = setTimeout(() => {
      this.wake();
      if (!this.#stopped) this.#schedule();
    }, this.#options.pollMs);
    this.#timer.unref();
  }

  async #fill(): Promise<void> {
    // Round robin over the queues, so one queue with a deep backlog does not starve the others.
    for (let tried = 0; tried < this.#handlers.length && !this.#stopped; tried++) {
      const free = this.#options.concurrency - this.#running.size;
      if (free <= 0) return;
      const handler = this.#handlers[this.#next++ % this.#handlers.length];
      if (this.#idle.has(handler.queue)) continue;
      const { leaseMs, projectLimit } = this.#options;
      const wakes = this.#wakes.get(handler.queue);
      const jobs = await claim<never>(this.#db, handler.queue, free, leaseMs, projectLimit);
      for (const job of jobs) this.#track(handler, job);
      if (jobs.length < free && this.#wakes.get(handler.queue) === wakes) this.#idle.add(handler.queue);
      if (jobs.length > 0) tried = -1;
    }
  }

  #track(handler: JobHandler<never>, job: Job<never>): void {
    const controller = new AbortController();
    this.#running.set(job.id, controller);
    const settled: Promise<void> = this.#execute(handler, job, controller)
      .catch(this.#options.onError)
      .finally(() => {
        this.#running.delete(job.id);
        this.#settled.delete(settled);
        this.wake([handler.queue]);
      });
    this.#settled.add(settled);
  }

  async #execute(handler: JobHandler<never>, job: Job<never>, controller: AbortController): Promise<void> {
    const { leaseMs } = this.#options;
    // A job claimed again after its lease ran out on its last allowed attempt (its process kept dying on it).
    if (job.attempts > job.maxAttempts) return this.#giveUp(handler, job, new Error(`lease expired ${job.maxAttempts} times`));
    const renewal = setInterval(() => {
      renew(this.#db, job, leaseMs).then(
        (held) => held || controller.abort(new Error("the job's lease was lost")),
        this.#options.onError,
      );
    }, Math.max(leaseMs / 3, 50));
    try {
      await handler.run(job, controller.signal);
      await complete(this.#db, job);
    } catch (error) {
      if (this.#stopped && controller.signal.aborted) {
        await release(this.#db, job);
        return;
      }
      const wait = retryDelay(error, job, this.#options.retryBaseMs);
      if (wait === null) await this.#giveUp(handler, job, error);
      else await fail(this.#db, job, message(error), wait);
    } finally {
      clearInterval(renewal);
    }
  }

  async #giveUp(handler: JobHandler<never>, job: Job<never>, error: unknown): Promise<void> {
    await handler.giveUp?.(job, error);
    await fail(this.#db, job, message(error), null);
  }
}

/** When to try a failed attempt again: the error's own hint, else exponential backoff; null once attempts are used up. */
function retryDelay(error: unknown, job: Job, baseMs: number): number | null {
  if (job.attempts >= job.maxAttempts) return null;
  const hint = (error as RetryHint | null)?.retryAfterMs;
  if (hint === null) return null;
  if (typeof hint === "number") return Math.min(hint, MAX_RETRY_MS);
  return Math.min(baseMs * 2 ** (job.attempts - 1), MAX_RETRY_MS);
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));
