import { describe, expect, it } from "vitest";
import { ProjectPermits } from "../../src/evaluations/execution/project-permits.ts";

describe("permits to invoke, shared between projects", () => {
  it("gives a freed permit to the waiting project that holds the fewest, then to the longest waiting", async () => {
    const permits = new ProjectPermits(2);
    const signal = new AbortController().signal;
    const order: string[] = [];
    const wait = (project: string, name: string) => permits.acquire(project, signal).then(() => order.push(name));
    await wait("a", "a1");
    await wait("a", "a2");
    const queued = [wait("a", "a3"), wait("a", "a4"), wait("b", "b1")];
    permits.release("a");
    await Promise.resolve();
    permits.release("a");
    permits.release("b");
    await Promise.all(queued);
    expect(order).toEqual(["a1", "a2", "b1", "a3", "a4"]);
  });

  it("drops a waiter whose signal aborts", async () => {
    const permits = new ProjectPermits(1);
    await permits.acquire("a", new AbortController().signal);
    const stop = new AbortController();
    const dropped = permits.acquire("b", stop.signal);
    stop.abort(new Error("stopping"));
    await expect(dropped).rejects.toThrow("stopping");
    const next = permits.acquire("c", new AbortController().signal);
    permits.release("a");
    await expect(next).resolves.toBeUndefined();
  });
});
