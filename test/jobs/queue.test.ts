import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../../src/accounts/accounts.ts";
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
/** A project of its own (jobs name theirs through a foreign key). */
async function newProject(): Promise<string> {
  const spec = { user: { email: `user-${uuidv7()}@test.local` } };
  return (await one.transaction((tx) => createAccount(tx, spec, false))).project.id;
}

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

  it("names each queue it adds to in its notice, and sends none when it adds nothing", async () => {
    const [a, b] = [newQueue(), newQueue()];
    const heard: string[] = [];
    const unlisten = await two.listen("tessera_jobs", (payload) => heard.push(payload));
    const three = [{ queue: a, key: "k", payload: 1 }, { queue: b, payload: 2 }, { queue: a, payload: 3 }];
    expect(await enqueue(one, three)).toBe(3);
    expect(await enqueue(one, [{ queue: a, key: "k", payload: 4 }])).toBe(0);
    await enqueue(one, [{ queue: b, payload: 5 }]);
    for (let i = 0; i < 50 && heard.filter((q) => q === b).length < 2; i++) await sleep(20);
    await unlisten();
    expect(heard.filter((q) => q === a || q === b).sort()).toEqual([a, b, b].sort());
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
    // Long enough that a claim on a busy machine does not outlive it (the lease starts when the claim does).
    const [first] = await claim(one, queue, 1, 500);
    expect(await claim(two, queue, 1, 60_000)).toEqual([]);
    await sleep(600);
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

describe("claims shared between projects", () => {
  it("serves a project's one job before another's earlier backlog drains, and jobs without a project too", async () => {
    const queue = newQueue();
    const [a, b] = [await newProject(), await newProject()];
    await enqueue(one, Array.from({ length: 20 }, (_, n) => ({ queue, projectId: a, payload: n })));
    await enqueue(one, [{ queue, projectId: b, payload: "b" }]);
    const claimed: (string | null)[] = [];
    for (let i = 0; i < 3; i++) {
      claimed.push(...(await claim(i % 2 ? two : one, queue, 1, 60_000)).map((j) => j.projectId));
    }
    // The oldest job first; then B, which holds nothing, before A's second.
    expect(claimed).toEqual([a, b, a]);

    const mixed = newQueue();
    await enqueue(one, Array.from({ length: 5 }, (_, n) => ({ queue: mixed, payload: n })));
    await enqueue(one, [{ queue: mixed, projectId: a, payload: "a" }]);
    const both = await claim(one, mixed, 3, 60_000);
    expect(both.map((j) => j.projectId)).toEqual([null, a, null]);
  });

  it("gives a project no job past its limit of leased jobs, while it gives another project one", async () => {
    const queue = newQueue();
    const [a, b] = [await newProject(), await newProject()];
    await enqueue(one, Array.from({ length: 6 }, (_, n) => ({ queue, projectId: a, payload: n })));
    const held = await claim(one, queue, 5, 60_000, 2);
    expect(held.map((j) => j.payload)).toEqual([0, 1]);
    await enqueue(one, [{ queue, projectId: b, payload: "b" }]);
    // Another process counts the same leases.
    expect((await claim(two, queue, 5, 60_000, 2)).map((j) => j.payload)).toEqual(["b"]);
    expect(await claim(two, queue, 5, 60_000, 2)).toEqual([]);
    expect(await complete(one, held[0])).toBe(true);
    expect((await claim(two, queue, 5, 60_000, 2)).map((j) => j.payload)).toEqual([2]);
    expect(await countByStatus(one, queue, {})).toMatchObject({ running: 3, done: 1, queued: 3 });
  });

  it("lets claims at the same moment take different jobs of one project while it has room", async () => {
    const queue = newQueue();
    const a = await newProject();
    await enqueue(one, Array.from({ length: 12 }, (_, n) => ({ queue, projectId: a, payload: n })));
    const claims = await Promise.all([0, 1, 2].map((i) => claim<number>(i % 2 ? two : one, queue, 2, 60_000, 8)));
    const seen = claims.flat().map((j) => j.payload);
    expect(claims.map((c) => c.length)).toEqual([2, 2, 2]);
    expect(new Set(seen).size).toBe(6);
    expect((await claim<number>(one, queue, 8, 60_000, 8)).length).toBe(2);
  });
});
