import { connect } from "node:net";
import { networkInterfaces } from "node:os";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.ts";
import { startServerProcess } from "./support/process.ts";
import { processTarget, type ProcessTarget } from "./support/process-target.ts";

const targets: ProcessTarget[] = [];
afterAll(async () => Promise.all(targets.map((t) => t.dispose())));

/** Whether a TCP connection to host:port is accepted. */
const reachable = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host, port, timeout: 5_000 });
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => (socket.destroy(), resolve(false)));
  });

const externalAddress = () =>
  Object.values(networkInterfaces()).flat().find((a) => a && a.family === "IPv4" && !a.internal)?.address;

describe("HOST", () => {
  it("defaults to 127.0.0.1 (local only); HOST chooses another interface", () => {
    expect(loadConfig({}).host).toBe("127.0.0.1");
    expect(loadConfig({ HOST: "0.0.0.0" }).host).toBe("0.0.0.0");
  });

  it("a server started without HOST listens on the loopback interface only", async () => {
    const target = await processTarget();
    targets.push(target);
    const server = await startServerProcess({ ...target.env, HOST: undefined });
    try {
      const port = Number(new URL(server.url).port);
      const addresses = [...server.output.stdout.matchAll(/Server listening at (http:\/\/[^"\s]+)/g)].map((m) => m[1]);
      expect(addresses).toEqual([`http://127.0.0.1:${port}`]);
      expect(await reachable("127.0.0.1", port)).toBe(true);
      const external = externalAddress();
      if (external) expect(await reachable(external, port)).toBe(false);
    } finally {
      await server.stop();
    }
  }, 60_000);
});
