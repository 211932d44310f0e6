import { readdirSync, readFileSync } from "node:fs";
import { getPriority } from "node:os";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.ts";
import { buildServer } from "../src/http/server.ts";
import { SandboxPool } from "../src/runtime/code/sandbox-pool.ts";
import { DEFAULT_SANDBOX_LIMITS } from "../src/runtime/code/sandbox.ts";
import { startTestServer, type TestProject, type TestServer } from "./support/server.ts";

const RUNAWAY = "function run() { while (true) {} }";
// A single string search QuickJS never interrupts: billions of comparisons inside one builtin call.
const UNINTERRUPTIBLE = "function run() { return 'a'.repeat(4e6).indexOf('a'.repeat(2e4) + 'b'); }";

/** Invokes an inline custom-code revision as `project`. */
const invokeCode = (app: FastifyInstance, project: TestProject, script: string, inputs: Record<string, unknown> = {}) =>
  app.inject({
    method: "POST",
    url: "/services/invoke",
    headers: { authorization: `ApiKey ${project.key}` },
    payload: { data: { inputs, revision: { data: { uri: "svc:custom:code:v0", script } } } },
  });

/** Yields to the event loop until `condition` holds (state, never time, decides). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe("a project flooding the code sandbox", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      TESSERA_SANDBOX_WORKERS: "2",
      TESSERA_SANDBOX_PROJECT_CONCURRENCY: "1",
      TESSERA_SANDBOX_PROJECT_QUEUE_LIMIT: "2",
      TESSERA_SANDBOX_QUEUE_LIMIT: "50",
    });
  });
  afterAll(() => server.close());

  it("has its runaways stopped at the time limit, its overflow refused with 429, and others still served", async () => {
    const [flooder, neighbour] = [await server.project(), await server.project()];
    let floodOver = false;
    const runaways = Array.from({ length: 12 }, () => invokeCode(server.app, flooder, RUNAWAY));
    const flood = Promise.all(runaways).finally(() => {
      floodOver = true;
    });

    const other = await invokeCode(server.app, neighbour, "function run(inputs) { return { twice: inputs.n * 2 }; }", {
      n: 21,
    });
    const health = await server.app.inject({ method: "GET", url: "/api/health" });
    expect(floodOver).toBe(false);
    expect(other.statusCode).toBe(200);
    expect(other.json().data.outputs).toEqual({ twice: 42 });
    expect(health.json()).toEqual({ status: "ok" });

    const answers = await flood;
    const refused = answers.filter((res) => res.statusCode === 429);
    const stopped = answers.filter((res) => res.statusCode === 408);
    expect(refused.length).toBeGreaterThan(0);
    expect(stopped.length).toBeGreaterThanOrEqual(3); // one running and two waiting
    expect(refused.length + stopped.length).toBe(12);
    for (const res of refused) {
      expect(Number(res.headers["retry-after"])).toBeGreaterThanOrEqual(1);
      expect(res.json().status).toMatchObject({ code: 429, type: expect.stringMatching(/code:busy$/) });
      expect(res.json().status.message).toMatch(/TESSERA_SANDBOX_PROJECT_QUEUE_LIMIT/);
      expect(res.json().trace_id).toMatch(/^[0-9a-f]{32}$/);
    }
    for (const res of stopped) {
      expect(res.json().status).toMatchObject({ code: 408, type: expect.stringMatching(/code:time-limit$/) });
      expect(res.json().status.message).toMatch(/time limit of 1000 ms/);
    }
    // Once the flood has drained, the flooder is served again.
    const back = await invokeCode(server.app, flooder, "function run() { return 'back'; }");
    expect(back.json().data.outputs).toBe("back");
  });

  it("runs custom-code and regex evaluators in the sandbox threads too", async () => {
    const project = await server.project();
    const evaluate = (key: string, parameters: Record<string, unknown>, outputs = "Paris") => server.app.inject({
      method: "POST",
      url: `/services/${key}/v0/invoke`,
      headers: { authorization: `ApiKey ${project.key}` },
      payload: { data: { inputs: { correct_answer: "Paris" }, outputs, parameters } },
    });
    const code = await evaluate("auto_custom_code_run", {
      code: "function evaluate(inputs, output) { return output === inputs.correct_answer ? 1 : 0; }",
      threshold: 0.5,
    });
    expect(code.json().data.outputs).toEqual({ score: 1, success: true });
    const regex = await evaluate("auto_regex_test", { regex_pattern: "^Par" });
    expect(regex.json().data.outputs).toEqual({ success: true });
    const catastrophic = await evaluate("auto_regex_test", { regex_pattern: "^(a+)+$" }, `${"a".repeat(40)}!`);
    expect(catastrophic.json().status).toMatchObject({ code: 408, type: expect.stringMatching(/code:time-limit$/) });
  });

  it("starts with the first run and closes with the server", async () => {
    const config = loadConfig({ ...process.env, TESSERA_SANDBOX_WORKERS: "2" });
    const sandbox = new SandboxPool(config.sandbox);
    const app = await buildServer({ config, db: server.db, sandbox }, { logger: false });
    try {
      await app.ready();
      expect((await app.inject({ method: "GET", url: "/api/health" })).statusCode).toBe(200);
      expect(sandbox.threads).toBe(0);
      const running = invokeCode(app, await server.project(), RUNAWAY);
      await until(() => sandbox.threads === 1);
      await app.close();
      expect(sandbox.threads).toBe(0);
      const cut = await running;
      expect(cut.json().status).toMatchObject({ code: 503, message: "The server is shutting down" });
      const afterClose = sandbox.run("p", RUNAWAY, [{ entry: "run", args: [] }], DEFAULT_SANDBOX_LIMITS);
      await expect(afterClose).rejects.toMatchObject({ statusCode: 503 });
    } finally {
      await app.close();
    }
  });
});

describe("the sandbox pool", () => {
  it("refuses a run beyond the queue limit across projects, naming the variable", async () => {
    const pool = new SandboxPool({ workers: 1, projectConcurrency: 1, projectQueueLimit: 5, queueLimit: 2 });
    const limits = { ...DEFAULT_SANDBOX_LIMITS, timeMs: 100 };
    const entries = [{ entry: "run", args: [] }];
    const caught = (error: unknown) => error;
    const admitted = ["a", "b", "c"].map((project) => pool.run(project, RUNAWAY, entries, limits).catch(caught));
    const refused = await pool.run("d", RUNAWAY, entries, limits).catch(caught);
    expect(refused).toMatchObject({ statusCode: 429, retryAfterSeconds: 1 });
    expect(String(refused)).toMatch(/at most 2 may wait across projects \(TESSERA_SANDBOX_QUEUE_LIMIT\)/);
    for (const error of await Promise.all(admitted)) expect(error).toMatchObject({ statusCode: 408 });
    await pool.close();
  });

  // (A process already at the lowest priority has no lower one to give its threads.)
  const niceable = process.platform === "linux" && getPriority() < 19;
  it.runIf(niceable)("runs projects' code at the lowest priority (nice 19), and only projects' code", async () => {
    // This process's threads at nice 19 (field 19 of /proc/self/task/<tid>/stat). Test files share the process: a
    // thread of another file's may be there already.
    const lowest = () => new Set(readdirSync("/proc/self/task").filter((tid) => {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]) === 19;
    }));
    const before = lowest();
    const pool = new SandboxPool({ workers: 1, projectConcurrency: 1, projectQueueLimit: 5, queueLimit: 5 });
    const entries = [{ entry: "run", args: [] }];
    const ran = await pool.run("p", "function run() { return 1; }", entries, DEFAULT_SANDBOX_LIMITS);
    expect(ran).toEqual({ entry: "run", value: 1 });
    // The sandbox thread alone: not the threads libuv starts for every thread's file reads when first asked.
    expect([...lowest()].filter((tid) => !before.has(tid))).toHaveLength(1);
    await pool.close();
  });

  it("terminates and replaces a thread the interrupt handler cannot stop", async () => {
    const pool = new SandboxPool({ workers: 1, projectConcurrency: 1, projectQueueLimit: 5, queueLimit: 5 });
    const entries = [{ entry: "run", args: [] }];
    const stuck = pool.run("p", UNINTERRUPTIBLE, entries, { ...DEFAULT_SANDBOX_LIMITS, timeMs: 100 });
    const next = pool.run("p", "function run() { return 'next'; }", entries, DEFAULT_SANDBOX_LIMITS);
    await expect(stuck).rejects.toMatchObject({ statusCode: 408, message: "Script exceeded the time limit of 100 ms" });
    expect(await next).toEqual({ entry: "run", value: "next" });
    expect(pool.threads).toBe(1);
    await pool.close();
  });
});
