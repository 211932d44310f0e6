import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processTarget, type ProcessTarget } from "../support/process-target.ts";
import { startServerProcess, type ServerProcess } from "../support/process.ts";

let target: ProcessTarget;
let server: ServerProcess | null = null;
let hook: http.Server;
let hookUrl: string;
/** The application's service answers while open; while shut it holds every call, so the run stalls where the test wants. */
let open = true;
let answered = 0;
const held: http.ServerResponse[] = [];

beforeAll(async () => {
  target = await processTarget();
  hook = http.createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    if (!open) return void held.push(res);
    const { inputs } = JSON.parse(body);
    answered++;
    res.setHeader("content-type", "application/json").end(JSON.stringify(inputs.n * inputs.n));
  });
  await new Promise<void>((resolve) => hook.listen(0, "127.0.0.1", resolve));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await server?.stop("SIGKILL");
  hook.closeAllConnections();
  hook.close();
  await target.dispose();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// One small batch at a time, a short lease: the run is long enough to be cut, and quick to take over.
const env = () => ({
  ...target.env, TESSERA_EVALUATION_BATCHES: "1", TESSERA_EVALUATION_BATCH_SIZE: "4", TESSERA_EVALUATION_CONCURRENCY: "1",
  TESSERA_JOB_LEASE_SECONDS: "1", TESSERA_ALLOW_PRIVATE_HOOKS: "true",
});

async function call(method: string, path: string, body?: unknown) {
  const key = readFileSync(join(target.dir, "api-key"), "utf8").trim();
  const res = await fetch(`${server!.url}/api${path}`, {
    method, headers: { authorization: `ApiKey ${key}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status}: ${await res.text()}`);
  return res.json() as Promise<any>;
}

describe("an evaluation whose server is killed mid-run", () => {
  it("resumes when a server starts again, and finishes with every scenario run exactly once", { timeout: 240_000 }, async () => {
    server = await startServerProcess(env());
    const rows = Array.from({ length: 40 }, (_, n) => ({ data: { n } }));
    const ts = (await call("POST", "/simple/testsets/", { testset: { slug: "numbers", data: { testcases: rows } } })).testset;
    const app = (await call("POST", "/simple/applications/", {
      application: { slug: "square", data: { uri: "svc:custom:hook:v0", url: hookUrl } },
    })).application;
    const { evaluation } = await call("POST", "/simple/evaluations/", {
      evaluation: { data: { testset_steps: [ts.revision_id], application_steps: [app.revision_id] } },
    });

    // Let three batches of four through, then hold the service: the run stops part way, mid-batch.
    let progress: any;
    for (let i = 0; i < 600 && answered < 14; i++) {
      if (answered >= 12) open = false;
      await sleep(5);
    }
    open = false;
    for (let i = 0; i < 600 && held.length === 0; i++) await sleep(10);
    progress = (await call("GET", `/simple/evaluations/${evaluation.id}/progress`)).progress;
    expect(progress.done).toBeGreaterThan(0);
    expect(progress.done).toBeLessThan(40);
    await server.stop("SIGKILL");
    for (const res of held.splice(0)) res.destroy();
    open = true;

    server = await startServerProcess(env());
    for (let i = 0; i < 600; i++) {
      progress = (await call("GET", `/simple/evaluations/${evaluation.id}/progress`)).progress;
      if (progress.status === "success") break;
      await sleep(50);
    }
    expect(progress).toMatchObject({ status: "success", scenarios: 40, done: 40, succeeded: 40, failed: 0 });
    const appStep = (await call("GET", `/evaluations/runs/${evaluation.id}`)).run.data.steps[1].key;
    const { results } = await call("POST", "/evaluations/results/query", { result: { run_id: evaluation.id, step_keys: [appStep] } });
    expect(results).toHaveLength(40);
    const scenarios = new Set(results.map((r: any) => r.scenario_id));
    expect(scenarios.size).toBe(40);
    const outputs = await Promise.all(results.map(async (r: any) => (await call("GET", `/traces/${r.trace_id}`)).trace.outputs));
    expect(outputs.sort((a, b) => a - b)).toEqual(rows.map((r) => r.data.n * r.data.n));
  });
});
