import { once } from "node:events";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { requestsInFlight } from "../../src/http/requests-in-flight.ts";

/** The server's count of requests in flight, and the wait for a moment with none (the trace writer's pieces). */
const held: ServerResponse[] = [];
const server = createServer((_req, res) => {
  held.push(res);
});
server.listen(0, "127.0.0.1");
await once(server, "listening");
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
const requests = requestsInFlight(server);
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

/** A request the server holds until `answer()`. */
async function inFlight() {
  const answered = fetch(url).then((res) => res.text());
  await expect.poll(() => held.length).toBeGreaterThan(0);
  const res = held.shift()!;
  return { answer: () => (res.end("ok"), answered) };
}

describe("requests in flight", () => {
  it("counts a request from its arrival to its answer, one counter a server", async () => {
    expect(requestsInFlight(server)).toBe(requests);
    const before = requests.answered;
    expect(requests.count).toBe(0);
    const one = await inFlight();
    const two = await inFlight();
    expect(requests.count).toBe(2);
    await one.answer();
    await two.answer();
    await expect.poll(() => requests.count).toBe(0);
    expect(requests.answered).toBe(before + 2);
  });

  it("waits for no request in flight: at once when there is none, else until the last is answered", async () => {
    let quiet = false;
    await requests.quiet(60_000).then(() => (quiet = true));
    expect(quiet).toBe(true);
    const one = await inFlight();
    quiet = false;
    const waited = requests.quiet(60_000).then(() => (quiet = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(quiet).toBe(false);
    await one.answer();
    await waited;
    expect(requests.count).toBe(0);
  });

  it("waits no longer than it is asked to while a request stays in flight", async () => {
    const one = await inFlight();
    const started = performance.now();
    await requests.quiet(30);
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
    expect(requests.count).toBe(1);
    await one.answer();
  });
});
