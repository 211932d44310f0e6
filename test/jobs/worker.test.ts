import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/database.ts";
import { migrate } from "../../src/db/migrate.ts";
import { uuidv7 } from "../../src/ids/uuid-v7.ts";
import { claim, countByStatus, enqueue, type Job, type JobStatus } from "../../src/jobs/queue.ts";
import { type JobHandler, JobWorker, type JobWorkerOptions } from "../../src/jobs/worker.ts";
import { emptyDatabase, type EmptyDatabase } from "../support/empty-database.ts";

let empty: EmptyDatabase;
let one: Database;
let two: Database;
const workers: JobWorker[] = [];

beforeAll(async () => {
  empty = await emptyDatabase();
  one = await empty.connect();
  two = await empty.connect();
  await migrate(one);
});

// Each worker keeps one connection for LISTEN: stop a test's workers before the next test starts its own.
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
});

afterAll(() => empty.dispose());

const newQueue = () => `test-${uuidv7()}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function startWorker(db: Database, handlers: JobHandler<any>[], options: Partial<JobWorkerOptions> = {}) {
  const worker = new JobWorker(db, handlers, { concurrency: 4, leaseMs: 5000, pollMs: 50, retryBaseMs: 10, ...options });
  workers.push(worker);
  await worker.start();
  return worker;
}

/** Waits (bounded) until `status` holds `n` jobs of the queue, and returns the counts. */
async function until(queue: string, status: JobStatus, n: number): Promise<Record<JobStatus, number>> {
  let counts = await countByStatus(one, queue, {});
  for (let i = 0; i < 300 && counts[status] < n; i++) {
    await sleep(50);
    counts = await countByStatus(one, queue, {});
  }
  return counts;
}

describe("a job worker", () => {
  it("runs every job exactly once across two processes, never more at once than its concurrency", async () => {
    const queue = newQueue();
    const runs = new Map<number, number>();
    const active = new Map<JobWorker, number>();
    let peak = 0;
    const handler = (self: () => JobWorker): JobHandler<{ n: number }> => ({
      queue,
      async run(job) {
        const now = (active.get(self()) ?? 0) + 1;
        active.set(self(), now);
        peak = Math.max(peak, now);
        runs.set(job.payload.n, (runs.get(job.payload.n) ?? 0) + 1);
        await sleep(2);
        active.set(self(), (active.get(self()) ?? 1) - 1);
      },
    });
    let a!: JobWorker;
    let b!: JobWorker;
    a = await startWorker(one, [handler(() => a)], { concurrency: 3 });
    b = await startWorker(two, [handler(() => b)], { concurrency: 3 });
    await enqueue(one, Array.from({ length: 120 }, (_, n) => ({ queue, payload: { n } })));
    expect(await until(queue, "done", 120)).toMatchObject({ done: 120, queued: 0, running: 0 });
    expect(runs.size).toBe(120);
    expect([...runs.values()].every((count) => count === 1)).toBe(true);
    expect(peak).toBeLessThanOrEqual(3);
  });

  it("retries a failing job with backoff until it succeeds", async () => {
    const queue = newQueue();
    const attempts: number[] = [];
    await startWorker(one, [{
      queue,
      async run(job: Job) {
        attempts.push(job.attempts);
        if (job.attempts < 3) throw new Error(`attempt ${job.attempts} failed`);
      },
    }]);
    await enqueue(one, [{ queue, payload: null, maxAttempts: 5 }]);
    expect(await until(queue, "done", 1)).toMatchObject({ done: 1 });
    expect(attempts).toEqual([1, 2, 3]);
  });

  it("gives up after the job's attempts, telling the handler once, and on an error that says never retry", async () => {
    const queue = newQueue();
    const givenUp: string[] = [];
    await startWorker(one, [{
      queue,
      async run(job: Job<string>) {
        if (job.payload === "fatal") throw Object.assign(new Error("bad input"), { retryAfterMs: null });
        throw new Error("always fails");
      },
      async giveUp(job: Job<string>, error: unknown) {
        givenUp.push(`${job.payload}@${job.attempts}: ${(error as Error).message}`);
      },
    }]);
    await enqueue(one, [{ queue, payload: "flaky", maxAttempts: 3 }, { queue, payload: "fatal", maxAttempts: 3 }]);
    expect(await until(queue, "failed", 2)).toMatchObject({ failed: 2, queued: 0 });
    expect(givenUp.sort()).toEqual(["fatal@1: bad input", "flaky@3: always fails"]);
  });

  it("finishes the job of a process that died holding it, once its lease runs out", async () => {
    const queue = newQueue();
    await enqueue(one, [{ queue, payload: "orphan" }]);
    const [held] = await claim(two, queue, 1, 100); // claimed by a process that then dies
    const seen: number[] = [];
    await startWorker(one, [{ queue, async run(job: Job) { seen.push(job.attempts); } }]);
    expect(await until(queue, "done", 1)).toMatchObject({ done: 1 });
    expect(held.attempts).toBe(1);
    expect(seen).toEqual([2]);
  });

  it("fails for good a job whose process died on its last allowed attempt", async () => {
    const queue = newQueue();
    await enqueue(one, [{ queue, payload: "poison", maxAttempts: 1 }]);
    await claim(two, queue, 1, 50);
    const ran: string[] = [];
    const givenUp: string[] = [];
    await startWorker(one, [{
      queue,
      async run() { ran.push("ran"); },
      async giveUp(_job: Job, error: unknown) { givenUp.push((error as Error).message); },
    }]);
    expect(await until(queue, "failed", 1)).toMatchObject({ failed: 1 });
    expect(ran).toEqual([]);
    expect(givenUp).toEqual(["lease expired 1 times"]);
  });

  it("hands its running jobs back on stop, and another process takes them over", async () => {
    const queue = newQueue();
    let started = 0;
    const stopping = await startWorker(one, [{
      queue,
      run: (_job: Job, signal: AbortSignal) => {
        started++;
        return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
      },
    }]);
    await enqueue(one, [{ queue, payload: 1 }, { queue, payload: 2 }]);
    for (let i = 0; i < 200 && started < 2; i++) await sleep(10);
    await stopping.stop();
    expect(await countByStatus(one, queue, {})).toMatchObject({ queued: 2, running: 0 });
    const attempts: number[] = [];
    await startWorker(two, [{ queue, async run(job: Job) { attempts.push(job.attempts); } }]);
    expect(await until(queue, "done", 2)).toMatchObject({ done: 2 });
    expect(attempts).toEqual([1, 1]);
  });

  it("claims only from queues that may have work: another queue's jobs leave the rest unclaimed", async () => {
    const [busy, quiet, later] = [newQueue(), newQueue(), newQueue()];
    const claimed: string[] = [];
    // The worker's own database, counting its claims by queue (the claim is the one statement with this CTE).
    const counting = new Proxy(one, {
      get(target, key) {
        if (key === "query") {
          return (sql: string, params?: unknown[]) => {
            if (sql.includes("WITH RECURSIVE waiting")) claimed.push(String(params?.[0]));
            return target.query(sql, params);
          };
        }
        const value = Reflect.get(target, key);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const ran: string[] = [];
    const handler = (queue: string): JobHandler => ({ queue, async run() { ran.push(queue); } });
    await startWorker(counting, [handler(busy), handler(quiet), handler(later)], { concurrency: 2, pollMs: 60_000 });
    for (let i = 0; i < 100 && claimed.length < 3; i++) await sleep(10);
    claimed.length = 0;
    await enqueue(one, Array.from({ length: 20 }, (_, n) => ({ queue: busy, payload: { n } })));
    expect(await until(busy, "done", 20)).toMatchObject({ done: 20 });
    expect(claimed.filter((queue) => queue !== busy)).toEqual([]);
    expect(claimed.length).toBeGreaterThanOrEqual(10);
    await enqueue(one, [{ queue: later, payload: { n: 0 } }]);
    expect(await until(later, "done", 1)).toMatchObject({ done: 1 });
    expect(claimed).not.toContain(quiet);
    expect(ran.filter((queue) => queue === later)).toHaveLength(1);
  });
});
