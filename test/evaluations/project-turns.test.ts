import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emptyDatabase, type EmptyDatabase } from "../support/empty-database.ts";
import { finishedEvaluation } from "../support/evaluations.ts";
import { startTestServer, type TestProject, type TestServer } from "../support/server.ts";

let server: TestServer;
let own: EmptyDatabase | null = null;

beforeAll(async () => {
  // On PostgreSQL, a schema of this file's own: no other test's server takes these batches, nor this one theirs.
  if (process.env.DATABASE_URL) {
    own = await emptyDatabase();
    process.env.DATABASE_URL = own.url!;
  }
  // One scenario a batch: a run of many rows is many batches, each taking a slot of the server's four.
  server = await startTestServer({ TESSERA_EVALUATION_BATCH_SIZE: "1" });
});

afterAll(async () => {
  await server.close();
  await own?.dispose();
});

const TERMINAL = ["success", "failure", "errors", "cancelled"];

/** A testset of `rows` testcases and the mock application, which waits 200 ms a row: what a run needs. */
async function prepare(p: TestProject, slug: string, rows: number) {
  const ts = (await p.ok("POST", "/simple/testsets/", {
    testset: { slug, data: { testcases: Array.from({ length: rows }, (_, n) => ({ data: { n } })) } },
  })).testset;
  const app = (await p.ok("POST", "/simple/applications/", {
    application: {
      slug: `${slug}-app`,
      data: { uri: "agenta:custom:mock:v0", parameters: { key: "delay", kwargs: { seconds: 0.2, then: "echo" } } },
    },
  })).application;
  return async () => (await p.ok("POST", "/simple/evaluations/", {
    evaluation: { data: { testset_steps: [ts.revision_id], application_steps: [app.revision_id] } },
  })).evaluation.id as string;
}

describe("evaluation work shared between projects", () => {
  it("finishes a one-row run of one project while another project's four queued runs are still going", async () => {
    const large = await server.project();
    const small = await server.project();
    const runs = [];
    for (let i = 0; i < 4; i++) runs.push(await prepare(large, `large-${i}`, 30));
    const start = await prepare(small, "small", 1);
    const queued = [];
    for (const run of runs) queued.push(await run());
    const one = await start();

    const finished = await finishedEvaluation((path) => small.ok("GET", path), one);
    expect(finished.data.status).toBe("success");
    const others = await Promise.all(queued.map((id) => large.ok("GET", `/simple/evaluations/${id}`)));
    const ended = others.map(({ evaluation: e }) => TERMINAL.includes(e.data.status) || !e.flags.is_active);
    // The large runs' batches go oldest first: on a loaded machine the first may have ended, never most of them.
    expect(ended.filter(Boolean).length).toBeLessThanOrEqual(1);
    const done = await Promise.all(queued.map(async (id) => {
      const { progress } = await large.ok("GET", `/simple/evaluations/${id}/progress`);
      return progress.done as number;
    }));
    // Taking turns, the small run waited for a few of the large runs' batches, not for most of their 120.
    expect(done.reduce((n, x) => n + x, 0)).toBeLessThan(60);
  });
});
