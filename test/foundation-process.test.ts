import { spawn } from "node:child_process";
import { connect } from "node:net";
import { request } from "node:http";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childEnv, ROOT, runScript, startServerProcess, watchProcess, type ServerProcess } from "./support/process.ts";
import { processTarget, type ProcessTarget } from "./support/process-target.ts";

/**
 * `npm start` as a user runs it: `node src/main.ts` in a child process, on embedded PGlite in a fresh
 * TESSERA_DATA_DIR (or, when DATABASE_URL is set, on an empty PostgreSQL schema).
 */
const ADMIN = "process-admin-key";
let target: ProcessTarget;
let server: ServerProcess | undefined;
let key: string;

beforeAll(async () => {
  target = await processTarget();
});
afterAll(async () => {
  await server?.stop("SIGKILL");
  await target.dispose();
});

/** 404 means the key got through authentication (the path is simply unknown); 401 means it did not. */
async function keyStatus(url: string, apiKey: string): Promise<number> {
  const res = await fetch(`${url}/api/process-test/needs-a-key`, { headers: { authorization: `ApiKey ${apiKey}` } });
  return res.status;
}

/** Log lines are pino JSON; the first-run banner is plain text between them. */
const logLines = (stdout: string) =>
  stdout.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Record<string, unknown>);

describe("server process", () => {
  it("first start: creates the default project, prints its key once and saves it (0600)", { timeout: 180_000 }, async () => {
    server = await startServerProcess({ ...target.env, TESSERA_ADMIN_KEY: ADMIN });
    const { stdout } = server.output;
    const printed = /API key \(shown once\):\s+(tsk_\S+)/.exec(stdout);
    expect(printed, stdout).not.toBeNull();
    key = printed![1];
    expect(stdout).toContain(`curl -s -X POST`);
    expect(stdout).toContain(`-H 'Authorization: ApiKey ${key}'`);
    expect(stdout).toContain(`/#key=${key}`);

    const file = join(target.dir, "api-key");
    expect(stdout).toContain(file);
    expect(readFileSync(file, "utf8").trim()).toBe(key);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("serves health, authenticates the key and logs JSON with the request id", async () => {
    const health = await fetch(`${server!.url}/api/health`, { headers: { "x-request-id": "process-test-1" } });
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    expect(health.headers.get("x-request-id")).toBe("process-test-1");

    expect(await keyStatus(server!.url, key)).toBe(404);
    expect(await keyStatus(server!.url, "tsk_AAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB")).toBe(401);

    // At the default level requests are not logged: the first-start banner stays readable.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(logLines(server!.output.stdout).filter((l) => l.reqId !== undefined)).toEqual([]);
    const listening = logLines(server!.output.stdout).find((l) => l.msg === "Tessera is listening");
    expect(listening).toMatchObject({ level: 30, driver: process.env.DATABASE_URL ? "postgres" : "pglite" });
  });

  it("logs every request, with its id, at LOG_LEVEL=debug", { timeout: 120_000 }, async () => {
    const own = await processTarget();
    const debug = await startServerProcess({ ...own.env, LOG_LEVEL: "debug" });
    try {
      await fetch(`${debug.url}/api/health`, { headers: { "x-request-id": "process-test-debug" } });
      const lines = () => logLines(debug.output.stdout).filter((l) => l.reqId === "process-test-debug");
      await expect.poll(() => lines().map((l) => l.msg)).toEqual(["incoming request", "request completed"]);
    } finally {
      await debug.stop("SIGKILL");
      await own.dispose();
    }
  });

  it("keeps its embedded database to itself: a second process is refused, with a message", { timeout: 60_000 }, async () => {
    const run = await runScript("src/cli/key-create.ts", ["--project", "default"], target.env);
    if (process.env.DATABASE_URL) {
      // PostgreSQL is shared: a key made next to the running server works at once.
      expect(run.code).toBe(0);
      expect(await keyStatus(server!.url, run.stdout.trim())).toBe(404);
    } else {
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/The embedded database in .* is in use by process \d+ \(a running Tessera server\?\)/);
    }
  });

  it("on SIGTERM finishes the request in flight, then exits 0", { timeout: 60_000 }, async () => {
    const { port } = new URL(server!.url);
    const body = JSON.stringify({ accounts: { late: { user: { email: "in-flight@test.local" } } } });
    // A request whose body is still arriving when the signal comes.
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        { host: "127.0.0.1", port, method: "POST", path: "/api/admin/simple/accounts/", headers: { authorization: `Access ${ADMIN}`, "content-type": "application/json", "content-length": Buffer.byteLength(body) } },
        (res) => {
          let text = "";
          res.setEncoding("utf8").on("data", (s: string) => (text += s)).on("end", () => resolve({ status: res.statusCode!, body: text }));
        },
      );
      req.on("error", reject);
      req.write(body.slice(0, 10));
      setTimeout(() => {
        void server!.stop("SIGTERM");
        setTimeout(() => req.end(body.slice(10)), 500);
      }, 300);
    });
    const answered = await response;
    expect(answered.status, answered.body).toBe(200);
    expect(JSON.parse(answered.body).accounts.late.user.email).toBe("in-flight@test.local");

    const end = await server!.stop();
    expect(end.signal).toBeNull();
    expect(end.code).toBe(0);
    expect(logLines(end.stdout).some((l) => l.msg === "shutting down: finishing in-flight requests")).toBe(true);
    expect(end.stderr).not.toMatch(/Error/);
    server = undefined;
  });

  it("a restart keeps the data: no new key, and the first key still works", { timeout: 180_000 }, async () => {
    server = await startServerProcess(target.env);
    expect(server.output.stdout).not.toContain("shown once");
    expect(readFileSync(join(target.dir, "api-key"), "utf8").trim()).toBe(key);
    expect(await keyStatus(server.url, key)).toBe(404);
    const end = await server.stop();
    expect(end.code).toBe(0);
    server = undefined;
    // The account created by the request in flight was committed before the first shutdown.
    const users = await target.use((db) => db.query("SELECT email FROM users WHERE email = 'in-flight@test.local'"));
    expect(users).toHaveLength(1);
  });

  it("npm start: SIGTERM to npm (as a process manager sends it) stops the server too", { timeout: 180_000 }, async () => {
    // `npm start` runs its script through sh, which would not pass the signal on: the script execs node.
    const npm = spawn("npm", ["start"], { cwd: ROOT, env: childEnv({ ...target.env, PORT: "0", HOST: "127.0.0.1" }), stdio: ["ignore", "pipe", "pipe"] });
    const { output, done } = watchProcess(npm, 170_000);
    await expect.poll(() => logLines(output.stdout).find((l) => l.msg === "Tessera is listening"), { timeout: 120_000, interval: 200 }).toBeTruthy();
    const serverPid = logLines(output.stdout).find((l) => l.msg === "Tessera is listening")!.pid as number;
    expect(serverPid).not.toBe(npm.pid);

    npm.kill("SIGTERM");
    await done;
    const alive = () => {
      try {
        process.kill(serverPid, 0);
        return true;
      } catch {
        return false;
      }
    };
    await expect.poll(alive, { timeout: 30_000 }).toBe(false);
    expect(logLines(output.stdout).some((l) => l.msg === "shutting down: finishing in-flight requests" && l.signal === "SIGTERM")).toBe(true);
  });

  it("SIGTERM drains for at most TESSERA_SHUTDOWN_TIMEOUT_MS, then closes what is left and exits 1", { timeout: 180_000 }, async () => {
    // Starts at all only if the server above let go of the embedded database.
    server = await startServerProcess({ ...target.env, TESSERA_SHUTDOWN_TIMEOUT_MS: "1000" });
    const { port } = new URL(server.url);
    // A client that announces a body and never sends it.
    const stuck = connect(Number(port), "127.0.0.1");
    const closed = new Promise<void>((resolve) => stuck.on("close", () => resolve()).on("error", () => {}));
    stuck.write(`POST /api/applications/query HTTP/1.1\r\nHost: x\r\nAuthorization: ApiKey ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`);
    await new Promise((r) => setTimeout(r, 500));

    const end = await server.stop("SIGTERM");
    server = undefined;
    expect(end.code).toBe(1);
    const lines = logLines(end.stdout);
    expect(lines.some((l) => l.msg === "requests still in flight after TESSERA_SHUTDOWN_TIMEOUT_MS: closing them" && l.timeoutMs === 1000)).toBe(true);
    await closed;
  });
});
