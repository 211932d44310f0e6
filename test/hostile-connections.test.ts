import { connect } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServerProcess, type ServerProcess } from "./support/process.ts";
import { processTarget, type ProcessTarget } from "./support/process-target.ts";

/**
 * Clients that hold connections open (slow or stalled headers and bodies, idle keep-alive) or leave in the
 * middle of an answer, over real sockets against a server process (`npm start`), with its limits set to 1 s.
 */
const LIMIT_MS = 1000;
/** How long a test waits for the server to close a connection: far past the limit, far below the defaults. */
const BOUND_MS = 15_000;
/** A testset id no project holds: a query for it is answered with no rows. */
const ABSENT = "01a21a37-0000-7000-8000-000000000000";

let target: ProcessTarget;
let server: ServerProcess;
let key: string;
let port: number;

beforeAll(async () => {
  target = await processTarget();
  server = await startServerProcess({
    ...target.env,
    TESSERA_HEADERS_TIMEOUT_MS: String(LIMIT_MS),
    TESSERA_BODY_TIMEOUT_MS: String(LIMIT_MS),
    TESSERA_KEEP_ALIVE_TIMEOUT_MS: String(LIMIT_MS),
  }, 120_000);
  key = /API key \(shown once\):\s+(tsk_\S+)/.exec(server.output.stdout)![1];
  port = Number(new URL(server.url).port);
}, 180_000);
afterAll(async () => {
  await server?.stop("SIGKILL");
  await target?.dispose();
});

interface Conversation {
  /** Everything the server sent. */
  answer: string;
  /** Whether the server closed the connection within BOUND_MS. */
  closed: boolean;
}

/** Sends `parts` on one connection, `pauseMs` apart, then reads until the server closes it (or BOUND_MS pass). */
function converse(parts: string[], pauseMs = 0): Promise<Conversation> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let answer = "";
    socket.setEncoding("utf8").on("data", (chunk: string) => (answer += chunk));
    socket.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "ECONNRESET") reject(error);
    });
    const bound = setTimeout(() => {
      socket.destroy();
      resolve({ answer, closed: false });
    }, BOUND_MS);
    socket.on("close", () => {
      clearTimeout(bound);
      resolve({ answer, closed: true });
    });
    socket.on("connect", async () => {
      for (const [i, part] of parts.entries()) {
        if (i > 0) await sleep(pauseMs);
        if (!socket.destroyed) socket.write(part);
      }
    });
  });
}

const status = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
const body = (answer: string) => JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)) as { detail?: string };
const logLines = () =>
  server.output.stdout.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Record<string, any>);

function post(path: string, json: string, headers: Record<string, string> = {}): string {
  const lines = [
    `POST ${path} HTTP/1.1`, "Host: 127.0.0.1", `Authorization: ApiKey ${key}`, "Content-Type: application/json",
    `Content-Length: ${Buffer.byteLength(json)}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  return `${lines.join("\r\n")}\r\n\r\n${json}`;
}

describe("time limits on connections", () => {
  it("a stalled body is answered 408 naming TESSERA_BODY_TIMEOUT_MS, and its connection closed", async () => {
    const request = post("/api/testcases/query", JSON.stringify({ testset_id: ABSENT }));
    const { answer, closed } = await converse([request.slice(0, request.length - 20)]);
    expect(closed, answer).toBe(true);
    expect(status(answer), answer).toBe(408);
    expect(body(answer).detail).toMatch(/stopped arriving.*TESSERA_BODY_TIMEOUT_MS/);
    expect(logLines().filter((l) => (l.level as number) >= 40), server.output.stdout).toEqual([]);
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
  });

  it("a body that keeps coming, longer than the limit in all but never quiet for as long, is answered", async () => {
    const request = post("/api/testcases/query", JSON.stringify({ testset_id: ABSENT }));
    const start = request.indexOf("\r\n\r\n") + 4;
    const json = request.slice(start);
    const pieces = Array.from({ length: 5 }, (_, i) => json.slice((i * json.length) / 5, ((i + 1) * json.length) / 5));
    const { answer } = await converse([request.slice(0, start), ...pieces], LIMIT_MS / 2);
    expect(status(answer), answer).toBe(200);
    expect(answer).toContain('"count":0');
  });

  it("a handler that works longer than the body limit, after the body came, still answers", async () => {
    const wait = { key: "delay", kwargs: { seconds: (3 * LIMIT_MS) / 1000 } };
    const invoke = JSON.stringify({ data: { inputs: {}, parameters: wait } });
    const { answer } = await converse([post("/services/mock/v0/invoke", invoke)]);
    expect(status(answer), answer).toBe(200);
    expect(answer).toContain('"success":true');
  });

  it("stalled headers are answered 408 naming TESSERA_HEADERS_TIMEOUT_MS, and the connection closed", async () => {
    const { answer, closed } = await converse(["POST /api/testcases/query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Ty"]);
    expect(closed, answer).toBe(true);
    expect(status(answer), answer).toBe(408);
    expect(body(answer).detail).toMatch(/headers did not arrive.*TESSERA_HEADERS_TIMEOUT_MS/);
  });

  it("an idle keep-alive connection is closed after TESSERA_KEEP_ALIVE_TIMEOUT_MS", async () => {
    const { answer, closed } = await converse(["GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"]);
    expect(status(answer), answer).toBe(200);
    expect(answer.toLowerCase()).toContain("keep-alive");
    expect(closed).toBe(true);
  });
});

describe("clients that leave before their answer", () => {
  it("a query whose client leaves is logged as such, not as an unhandled error", { timeout: 180_000 }, async () => {
    const row = (i: number) => JSON.stringify({ n: i, text: `${"x".repeat(4000)}${i}` });
    const rows = Array.from({ length: 1000 }, (_, i) => row(i)).join("\n");
    const form = new FormData();
    form.set("file_type", "jsonl");
    form.set("testset_slug", "large-answer");
    form.set("file", new Blob([rows]), "large.jsonl");
    const created = await fetch(`${server.url}/api/simple/testsets/upload`, {
      method: "POST", headers: { authorization: `ApiKey ${key}` }, body: form,
    });
    expect(created.status).toBe(200);
    const testsetId = ((await created.json()) as { testset: { id: string } }).testset.id;
    const query = post("/api/testcases/query", JSON.stringify({ testset_id: testsetId, windowing: { limit: 1000 } }), {
      "Accept-Encoding": "gzip",
    });

    // Each client sends its query and leaves before the 4 MB answer (gzipped, streamed) is written.
    for (const leaveAfterMs of [0, 0, 5, 10, 20]) {
      await new Promise<void>((resolve) => {
        const socket = connect(port, "127.0.0.1", () => {
          socket.write(query);
          setTimeout(() => socket.destroy(), leaveAfterMs);
        });
        socket.on("close", () => resolve());
      });
    }
    // What the server logged of them: the client's leaving (info), or before the fix an unhandled error.
    const LEFT = "client closed the connection before its answer was sent";
    const ends = () => logLines().filter((l) => l.msg === LEFT || l.msg === "unhandled error");
    await expect.poll(() => ends().length, { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
    expect(logLines().filter((l) => (l.level as number) >= 50), server.output.stdout).toEqual([]);
    expect(ends().map((l) => l.level)).toEqual(ends().map(() => 30));

    const again = await fetch(`${server.url}/api/testcases/query`, {
      method: "POST",
      headers: { authorization: `ApiKey ${key}`, "content-type": "application/json", "accept-encoding": "gzip" },
      body: JSON.stringify({ testset_id: testsetId, windowing: { limit: 1000 } }),
    });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { count: number }).count).toBe(1000);
  });
});
