import { connect } from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectWhenIdle } from "../src/http/idle-collector.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

/**
 * A server idle after big work gives memory back with one full collection (the real V8 collector,
 * as `--expose-gc` gives it to `npm start`), once per quiet spell, and only above its floor.
 */
let server: TestServer;
let url: string;
let calls = 0;
type Gc = (options?: Record<string, string>) => void;
const saved = (globalThis as { gc?: Gc }).gc;

beforeAll(async () => {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as Gc;
  (globalThis as { gc?: Gc }).gc = (options) => {
    calls++;
    gc(options);
  };
  server = await startTestServer();
  collectWhenIdle(server.app, { idleMs: 200, rssFloor: 0 });
  url = await server.app.listen({ port: 0, host: "127.0.0.1" });
});
afterAll(async () => {
  (globalThis as { gc?: Gc }).gc = saved;
  await server.close();
});

const until = async (done: () => boolean) => {
  while (!done()) await new Promise((r) => setTimeout(r, 50));
};

describe("idle memory", () => {
  it("gives memory back once requests stop, and collects again only after new requests", async () => {
    // What big work leaves behind: ~400 MB of objects no longer referenced.
    let garbage: unknown[] | null = Array.from({ length: 2_000_000 }, (_, i) => ({ text: `row ${i}`, cells: [i, i + 1], meta: { i } }));
    expect(garbage.length).toBe(2_000_000);
    garbage = null;
    const held = process.memoryUsage.rss();
    await fetch(`${url}/api/health`).then((r) => r.arrayBuffer());
    await until(() => calls === 1);
    expect(process.memoryUsage.rss()).toBeLessThan(held - 100 * 2 ** 20);
    // A quiet spell without requests collects nothing more.
    await new Promise((r) => setTimeout(r, 1000));
    expect(calls).toBe(1);
    await fetch(`${url}/api/health`).then((r) => r.arrayBuffer());
    await until(() => calls === 2);
  });

  it("leaves a server under its resident-size floor alone", async () => {
    const other = await startTestServer();
    try {
      collectWhenIdle(other.app, { idleMs: 200, rssFloor: Number.MAX_SAFE_INTEGER });
      const otherUrl = await other.app.listen({ port: 0, host: "127.0.0.1" });
      const before = calls;
      await fetch(`${otherUrl}/api/health`).then((r) => r.arrayBuffer());
      await new Promise((r) => setTimeout(r, 1000));
      expect(calls).toBe(before);
    } finally {
      await other.close();
    }
  });

  it("collects after a request whose body stalled: the body timeout ends it", { timeout: 120_000 }, async () => {
    const other = await startTestServer({ TESSERA_BODY_TIMEOUT_MS: "500", TESSERA_KEEP_ALIVE_TIMEOUT_MS: "500" });
    try {
      const { key } = await other.project();
      collectWhenIdle(other.app, { idleMs: 200, rssFloor: 0 });
      const { port } = new URL(await other.app.listen({ port: 0, host: "127.0.0.1" }));
      const before = calls;
      const socket = connect(Number(port), "127.0.0.1");
      socket.on("error", () => {});
      const closed = new Promise((resolve) => socket.on("close", resolve));
      socket.write(`POST /api/testcases/query HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ApiKey ${key}\r\n` +
        "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"testset");
      let answer = "";
      socket.setEncoding("utf8").on("data", (chunk: string) => (answer += chunk));
      await closed;
      expect(answer).toMatch(/^HTTP\/1\.1 408 .*TESSERA_BODY_TIMEOUT_MS/s);
      await until(() => calls > before);
    } finally {
      await other.close();
    }
  });
});
