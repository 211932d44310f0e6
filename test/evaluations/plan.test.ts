import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { planHandler, type PlanPayload } from "../../src/evaluations/execution/plan.ts";
import { BATCH_QUEUE, PLAN_QUEUE } from "../../src/evaluations/execution/run-end.ts";
import { claim, countByStatus } from "../../src/jobs/queue.ts";
import { emptyDatabase, type EmptyDatabase } from "../support/empty-database.ts";
import { startTestServer, type TestProject, type TestServer } from "../support/server.ts";

// No worker in this server: the test claims the plan job itself and runs the plan handler on it.
let server: TestServer;
let own: EmptyDatabase | null = null;
let p: TestProject;

beforeAll(async () => {
  // On PostgreSQL, a schema of this file's own: no other test's server claims jobs of this one.
  if (process.env.DATABASE_URL) {
    own = await emptyDatabase();
    process.env.DATABASE_URL = own.url!;
  }
  server = await startTestServer({ TESSERA_EVALUATION_BATCHES: "0" });
  p = await server.project();
});

afterAll(async () => {
  await server.close();
  await own?.dispose();
});

describe("planning a server-run evaluation", () => {
  it("goes on from the position its job recorded, so a plan taken over after a crash plans each testcase once", async () => {
    const rows = Array.from({ length: 7 }, (_, n) => ({ data: { n } }));
    const ts = (await p.ok("POST", "/simple/testsets/", { testset: { slug: "plan-rows", data: { testcases: rows } } })).testset;
    const app = (await p.ok("POST", "/simple/applications/", {
      application: { slug: "plan-square", data: { uri: "svc:custom:code:v0", script: "function run(i) { return i.n * i.n; }" } },
    })).application;
    const { evaluation } = await p.ok("POST", "/simple/evaluations/", {
      evaluation: { data: { testset_steps: [ts.revision_id], application_steps: [app.revision_id] } },
    });
    const { run } = await p.ok("GET", `/evaluations/runs/${evaluation.id}`);
    const inputKey = run.data.steps[0].key;

    // The plan job as a process that died after planning the first three testcases would have left it.
    await server.db.query("UPDATE jobs SET payload = $2::jsonb WHERE queue = $1 AND key = $3", [
      PLAN_QUEUE, JSON.stringify({ run_id: evaluation.id, planned: { [inputKey]: 3 } }), evaluation.id,
    ]);
    const [job] = await claim<PlanPayload>(server.db, PLAN_QUEUE, 1, 60_000);
    expect(job.payload.planned).toEqual({ [inputKey]: 3 });
    await planHandler(server.db, 2, 10_000).run(job, new AbortController().signal);

    const { results } = await p.ok("POST", "/evaluations/results/query", { result: { run_id: evaluation.id, step_key: inputKey } });
    const { testcases } = (await p.ok("POST", "/testsets/revisions/retrieve", {
      testset_revision_ref: { id: ts.revision_id }, include_testcases: true,
    })).testset_revision.data;
    const ids = testcases.map((t: { id: string }) => t.id);
    expect(results.map((r: { testcase_id: string }) => r.testcase_id)).toEqual(ids.slice(3));
    expect((await p.ok("GET", `/simple/evaluations/${evaluation.id}/progress`)).progress).toMatchObject({ status: "running", scenarios: 4 });
    expect(await countByStatus(server.db, PLAN_QUEUE, { run_id: evaluation.id })).toMatchObject({ done: 1, running: 0 });
    expect((await countByStatus(server.db, BATCH_QUEUE, { run_id: evaluation.id })).queued).toBe(2); // 4 scenarios, 2 a batch
  });
});
