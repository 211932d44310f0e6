import http, { type IncomingHttpHeaders } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { invokeWorkflow } from "../../src/runtime/invoke.ts";
import type { InvokeRequest } from "../../src/runtime/invoke-request.ts";
import { classifyAddress } from "../../src/runtime/net/address.ts";
import { failure } from "./failure.ts";

/** A user's hook service on 127.0.0.1: `/ok` echoes, others fail, flood, hang. */
let server: http.Server;
let base: string;
let port: number;
const sockets = new Set<Socket>();
const received: { path: string; headers: IncomingHttpHeaders; body: unknown }[] = [];
let floodBytesSent = 0;

beforeAll(async () => {
  server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "null");
    received.push({ path: req.url ?? "", headers: req.headers, body });
    if (req.url === "/ok/invoke") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ answer: `hello ${body.inputs.name}`, threshold: body.parameters.threshold }));
    } else if (req.url === "/broken/invoke") {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end("database exploded");
    } else if (req.url === "/flood/invoke") {
      // Never ends: the runtime must stop reading at its cap rather than wait for the end.
      res.writeHead(200, { "content-type": "application/json" });
      const chunk = Buffer.alloc(64 * 1024, "a");
      const pump = () => {
        while (floodBytesSent < 64 * 1024 * 1024 && res.write(chunk)) floodBytesSent += chunk.length;
      };
      res.on("drain", pump);
      pump();
    } else if (req.url === "/big/invoke") {
      res.writeHead(200, { "content-type": "application/json", "content-length": String(2 * 1024 * 1024) });
      res.end(Buffer.alloc(2 * 1024 * 1024, "b"));
    } else if (req.url === "/text/invoke") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("not json");
    } else if (req.url === "/hang/invoke") {
      // no answer
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});

const hook = (url: string, extra: Partial<InvokeRequest> = {}): InvokeRequest => ({
  uri: "svc:custom:hook:v0",
  url,
  headers: { authorization: "Bearer hook-token", "x-team": "geo" },
  inputs: { name: "Ada" },
  parameters: { threshold: 0.7 },
  allowPrivateHooks: true,
  ...extra,
});


describe("custom hook", () => {
  it("forwards inputs, parameters and headers, and returns the JSON body as outputs", async () => {
    const result = await invokeWorkflow(hook(`${base}/ok/`));
    expect(result.outputs).toEqual({ answer: "hello Ada", threshold: 0.7 });
    const request = received.at(-1)!;
    expect(request.path).toBe("/ok/invoke");
    expect(request.body).toEqual({ inputs: { name: "Ada" }, parameters: { threshold: 0.7 } });
    expect(request.headers).toMatchObject({ authorization: "Bearer hook-token", "x-team": "geo", "content-type": "application/json" });
    expect(result.spans.map((s) => s.type)).toEqual(["workflow", "hook"]);
    expect(JSON.stringify(result.spans)).not.toContain("hook-token");
  });

  it("passes evaluator fields along when present", async () => {
    await invokeWorkflow(hook(`${base}/ok`, { outputs: "Paris", testcase: { id: "t1" } }));
    expect(received.at(-1)!.body).toEqual({ inputs: { name: "Ada" }, parameters: { threshold: 0.7 }, outputs: "Paris", testcase: { id: "t1" } });
  });

  it("turns a non-2xx answer into a 502 naming the status", async () => {
    const error = await failure(hook(`${base}/broken`));
    expect(error.statusCode).toBe(502);
    expect(error.message).toMatch(/HTTP 500/);
    expect((await failure(hook(`${base}/missing`))).message).toMatch(/HTTP 404/);
    expect((await failure(hook(`${base}/text`))).message).toMatch(/not JSON/);
  });

  it("stops reading a response at 1 MB", async () => {
    const started = Date.now();
    const flood = await failure(hook(`${base}/flood`));
    expect(flood.statusCode).toBe(502);
    expect(flood.message).toMatch(/exceeds 1048576 bytes/);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await failure(hook(`${base}/big`))).message).toMatch(/exceeds/);
    expect((await failure(hook(`${base}/ok`, { limits: { hookResponseBytes: 10 } }))).message).toMatch(/exceeds 10 bytes/);
  });

  it("times out with a 504", async () => {
    const error = await failure(hook(`${base}/hang`, { timeouts: { hookMs: 200 } }));
    expect(error.statusCode).toBe(504);
    expect(error.type).toMatch(/timeout$/);
  });

  it("answers 502 when the hook is unreachable", async () => {
    const error = await failure(hook("http://127.0.0.1:9"));
    expect(error.statusCode).toBe(502);
  });

  it("refuses private addresses unless allowed", async () => {
    const before = received.length;
    const refusedHttp = await failure(hook(`${base}/ok`, { allowPrivateHooks: false }));
    expect(refusedHttp.statusCode).toBe(400);
    expect(refusedHttp.message).toMatch(/only https/);

    const loopbackByName = await failure(hook(`https://localhost:${port}/ok`, { allowPrivateHooks: false }));
    expect(loopbackByName.statusCode).toBe(400);
    expect(loopbackByName.type).toMatch(/forbidden-address$/);
    expect(loopbackByName.message).toMatch(/loopback/);

    for (const url of ["https://127.0.0.1", "https://[::1]", "https://[::ffff:127.0.0.1]", "https://[::ffff:7f00:1]", "https://10.1.2.3",
      "https://169.254.169.254/latest", "https://[fd00::1]", "https://[fe80::1]", "https://0.0.0.0", "https://[::]", "https://192.168.1.1", "https://2130706433"]) {
      const error = await failure(hook(url, { allowPrivateHooks: false }));
      expect(error.type, url).toMatch(/forbidden-address$/);
    }
    expect(received.length, "no refused request reached the server").toBe(before);
  });

  it("needs a url", async () => {
    expect((await failure(hook(""))).statusCode).toBe(400);
  });
});

describe("address classification", () => {
  it.each([
    ["8.8.8.8", "public"],
    ["1.1.1.1", "public"],
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["10.0.0.1", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["172.32.0.1", "public"],
    ["192.168.0.1", "private"],
    ["169.254.169.254", "link-local"],
    ["100.64.0.1", "shared"],
    ["0.0.0.0", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "reserved"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:8.8.8.8", "public"],
    ["::127.0.0.1", "loopback"],
    ["64:ff9b::a9fe:a9fe", "link-local"],
    ["2002:7f00:1::", "loopback"],
    ["fc00::1", "unique-local"],
    ["fd12:3456::1", "unique-local"],
    ["fe80::1%eth0", "link-local"],
    ["ff02::1", "multicast"],
    ["2001:db8::1", "reserved"],
    ["2001:4860:4860::8888", "public"],
    ["2606:4700:4700::1111", "public"],
  ])("%s is %s", (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });
});
