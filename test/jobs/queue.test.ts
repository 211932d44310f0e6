import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/database.ts";
import { migrate } from "../../src/db/migrate.ts";
import { uuidv7 } from "../../src/ids/uuid-v7.ts";
import { cancelQueued, claim, complete, countByStatus, enqueue, fail, release, renew } from "../../src/jobs/queue.ts";
import { emptyDatabase, type EmptyDatabase } from "../support/empty-database.ts";

let empty: EmptyDatabase;
let one: Database;
let two: Database;

beforeAll(async () => {
  empty = await emptyDatabase();
  one = await empty.connect();
  two = await empty.connect(); // on PostgreSQL a second pool, as a second process would have
  await migrate(one);
});

afterAll(() => empty.dispose());

const newQueue = () => `test-${uuidv7()}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the jobs queue", () => {
  it("adds a keyed job once, and wakes listeners when it adds one", async () => {
    const queue = newQueue();
    const heard: string[] = [];
    const unlisten = await two.listen("tessera_jobs", (payload) => heard.push(payload));
    expect(await enqueue(one, [{ queue, key: "a", payload: { n: 1 } }, { queue, key: "b", payload: { n: 2 } }])).toBe(2);
    expect(await enqueue(one, [{ queue, key: "a", payload: { n: 3 } }])).toBe(0);
    for (let i = 0; i < 50 && !heard.includes(queue); i++) await sleep(20);
    await unlisten();
    expect(heard).toContain(queue);
    const jobs = await claim<{ n: number }>(one, queue, 10, 60_000);
    expect(jobs.map((j) => j.payload.n).sort()).toEqual([1, 2]);
  });

  it("never hands one job to two claimers at once", async () => {
    const queue = newQueue();
    await enqueue(one, Array.from({ length: 40 }, (_, n) => ({ queue, payload: { n } })));
    const claims = await Promise.all([0, 1, 2, 3].map((i) => claim<{ n: number }>(i % 2 ? two : one, queue, 15, 60_000)));
    const seen = claims.flat().map((j) => j.payload.n);
    expect(seen).toHaveLength(40);
    expect(new Set(seen).size).toBe(40);
    expect(await claim(one, queue, 10, 60_000)).toEqual([]);
  });

  it("gives a job whose lease ran out to another claimer, and refuses the old holder's writes", async () => {
    const queue = newQueue();
    await enqueue(one, [{ queue, payload: "work" }]);
    const [first] = await claim(one, queue, 1, 50);
    expect(await claim(two, queue, 1, 60_000)).toEqual([]);
    await sleep(120);
    const [second] = await claim(two, queue, 1, 60_000);
    expect(second.id).toBe(first.id);
    expect(second.attempts).toBe(2);
    expect(await renew(one, first, 60_000)).toBe(false);
    expect(await complete(one, first)).toBe(false);
    expect(await complete(two, second)).toBe(true);
    expect(await countByStatus(one, queue, {})).toMatchObject({ done: 1, running: 0, queued: 0 });
  });

  it("retries a failed attempt when told to, and fails it for good when not", async () => {
    const queue = newQueue();
    await enqueue(one, [{ queue, payload: { name: "retry" } }, { queue, payload: { name: "stop" } }]);
    const jobs = await claim<{ name: string }>(one, queue, 2, 60_000);
    for (const job of jobs) expect(await fail(one, job, "boom", job.payload.name === "retry" ? 0 : null)).toBe(true);
    expect(await countByStatus(one, queue, {})).toMatchObject({ queued: 1, failed: 1 });
    const [again] = await claim<{ name: string }>(one, queue, 5, 60_000);
    expect(again.payload.name).toBe("retry");
    expect(again.attempts).toBe(2);
    const [row] = await one.query<{ last_error: string }>("SELECT last_error FROM jobs WHERE id = $1", [jobs[1].id]);
    expect(row.last_error).toBe("boom");
  });

  it("does not hand out a job before its delay, and a released job is due at once without spending an attempt", async () => {
    const queue = newQueue();
    await enqueue(one, [{ queue, payload: 1, delayMs: 60_000 }, { queue, payload: 2 }]);
    const [job] = await claim<number>(one, queue, 5, 60_000);
    expect(job.payload).toBe(2);
    expect(await release(one, job)).toBe(true);
    const [again] = await claim<number>(two, queue, 5, 60_000);
    expect(again).toMatchObject({ payload: 2, attempts: 1 });
  });

  it("cancels the queued jobs that match a payload, leaving running ones alone", async () => {
    const queue = newQueue();
    await enqueue(one, [
      { queue, payload: { run: "a", n: 1 } }, { queue, payload: { run: "a", n: 2 } }, { queue, payload: { run: "b", n: 3 } },
    ]);
    const [running] = await claim(one, queue, 1, 60_000);
    const cancelled = await cancelQueued(one, queue, { run: "a" });
    expect(cancelled).toBe((running.payload as { run: string }).run === "a" ? 1 : 2);
    const a = await countByStatus(one, queue, { run: "a" });
    expect(a.cancelled + a.running).toBe(2);
  });
});
