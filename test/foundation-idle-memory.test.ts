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
const saved = (globalThis as { gc?: () => void }).gc;

beforeAll(async () => {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  (globalThis as { gc?: () => void }).gc = () => {
    calls++;
    gc();
  };
  server = await startTestServer();
  collectWhenIdle(server.app, { idleMs: 200, rssFloor: 0 });
  url = await server.app.listen({ port: 0, host: "127.0.0.1" });
});
afterAll(async () => {
  (globalThis as { gc?: () => void }).gc = saved;
  await server.close();
});

const until = async (done: () => boolean) => {
  while (!done()) await new Promise((r) => setTimeout(r, 50));
};

describe("idle memory", () => {
  it("collects once after requests stop, and again only after new requests", async () => {
    await fetch(`${url}/api/health`).then((r) => r.arrayBuffer());
    await until(() => calls === 1);
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
});
