import { describe, expect, it } from "vitest";
import { ReferenceCache } from "../src/cache/reference-cache.ts";
import { openPostgres } from "../src/db/postgres-driver.ts";

const A = "project-a";
const B = "project-b";

describe("the reference cache", () => {
  it("keeps a value read in the current generation, by project, namespace and key", () => {
    const cache = new ReferenceCache();
    cache.set(A, "applications body", "{}", "a-value", cache.generation(A));
    expect(cache.get(A, "applications body", "{}")).toBe("a-value");
    expect(cache.get(A, "applications refs", "{}")).toBeUndefined();
    expect(cache.get(B, "applications body", "{}")).toBeUndefined();
  });

  it("forgets a project's values on a write there, and only there", async () => {
    const cache = new ReferenceCache();
    cache.set(A, "n", "k", 1, cache.generation(A));
    cache.set(B, "n", "k", 2, cache.generation(B));
    await cache.invalidate(A);
    expect(cache.get(A, "n", "k")).toBeUndefined();
    expect(cache.get(B, "n", "k")).toBe(2);
    expect(cache.size).toBe(1);
  });

  it("does not store what a read that started before a write brings back after it", async () => {
    const cache = new ReferenceCache();
    const before = cache.generation(A);
    await cache.invalidate(A);
    cache.set(A, "n", "k", "stale", before);
    expect(cache.get(A, "n", "k")).toBeUndefined();
    // Nor once the project has a record again: generations are never reused.
    const now = cache.generation(A);
    expect(now).not.toBe(before);
    cache.set(A, "n", "k", "stale", before);
    expect(cache.get(A, "n", "k")).toBeUndefined();
    cache.set(A, "n", "k", "fresh", now);
    expect(cache.get(A, "n", "k")).toBe("fresh");
  });

  it("stays within its bound by forgetting the projects cached longest ago", () => {
    const cache = new ReferenceCache(4);
    for (const project of ["p1", "p2", "p3"]) {
      const generation = cache.generation(project);
      cache.set(project, "n", "x", project, generation);
      cache.set(project, "n", "y", project, generation);
    }
    expect(cache.size).toBeLessThanOrEqual(4);
    expect(cache.get("p1", "n", "x")).toBeUndefined();
    expect(cache.get("p3", "n", "y")).toBe("p3");
    // Replacing a key's value does not count it twice.
    cache.set("p3", "n", "y", "again", cache.generation("p3"));
    expect(cache.get("p3", "n", "y")).toBe("again");
    expect(cache.size).toBeLessThanOrEqual(4);
  });

  it("forgets what it has held longer than its maximum age, however quiet the project", () => {
    const cache = new ReferenceCache(100, 1_000);
    const start = Date.now();
    cache.set(A, "n", "k", "old", cache.generation(A));
    cache.expire(start + 500);
    expect(cache.get(A, "n", "k")).toBe("old");
    cache.expire(start + 1_100);
    expect(cache.get(A, "n", "k")).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("forgets everything at once when the change feed may have missed something", () => {
    const cache = new ReferenceCache();
    cache.set(A, "n", "k", 1, cache.generation(A));
    const before = cache.generation(B);
    cache.forgetAll();
    cache.set(B, "n", "k", "read before the gap", before);
    expect(cache.get(A, "n", "k")).toBeUndefined();
    expect(cache.get(B, "n", "k")).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});

describe.skipIf(!process.env.DATABASE_URL)("reference caches of two processes (PostgreSQL)", () => {
  it("forget what the other's write changed, and keep what was read after their own write", async () => {
    const db = await openPostgres(process.env.DATABASE_URL!);
    // What `here` tells the others, to be sent again later: a notice comes back to its sender too, at any time.
    const sent: string[] = [];
    const hereDb = Object.assign(Object.create(db), {
      notify: (channel: string, payload: string) => (sent.push(payload), db.notify(channel, payload)),
    });
    const [here, there] = [new ReferenceCache(), new ReferenceCache()];
    const stops = [await here.connect(hereDb), await there.connect(db)];
    const until = async (done: () => boolean) => {
      for (let i = 0; i < 300 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    };
    try {
      here.set(A, "n", "k", "old", here.generation(A));
      await there.invalidate(A);
      await until(() => here.get(A, "n", "k") === undefined);
      expect(here.get(A, "n", "k")).toBeUndefined();

      there.set(A, "n", "k", "there", there.generation(A));
      await here.invalidate(A);
      here.set(A, "n", "k", "new", here.generation(A));
      await db.notify("tessera_changes", sent[0]!); // its own notice, arriving after the read that followed the write
      await until(() => there.get(A, "n", "k") === undefined);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(there.get(A, "n", "k")).toBeUndefined();
      expect(here.get(A, "n", "k")).toBe("new");
    } finally {
      for (const stop of stops) await stop();
      await db.close();
    }
  });
});
