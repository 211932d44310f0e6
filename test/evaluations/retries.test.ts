import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStubLlm, type StubLlm } from "../support/stub-llm.ts";
import { emptyDatabase, type EmptyDatabase } from "../support/empty-database.ts";
import { startTestServer, type TestProject, type TestServer } from "../support/server.ts";
import { finishedEvaluation } from "../support/evaluations.ts";

let stub: StubLlm;
let server: TestServer;
let own: EmptyDatabase | null = null;
let p: TestProject;

beforeAll(async () => {
  // On PostgreSQL, a schema of this file's own: no other test's server runs batches of this one.
  if (process.env.DATABASE_URL) {
    own = await emptyDatabase();
    process.env.DATABASE_URL = own.url!;
  }
  stub = await startStubLlm();
  // The runtime reads the provider's key and base URL from the environment when the project has no secret.
  process.env.OPENAI_BASE_URL = stub.baseUrl;
  process.env.OPENAI_API_KEY = "sk-eval";
  server = await startTestServer();
  p = await server.project();
});

afterAll(async () => {
  await server.close();
  await stub.close();
  await own?.dispose();
});


const finished = (id: string) => finishedEvaluation((path) => p.ok("GET", path), id);

/** A completion application on `model`, run over three questions and graded by exact match; answers the run and its provider calls. */
async function evaluate(model: string) {
  const questions = ["Where is my order?", "Can I return it?", "Do you ship abroad?"];
  const ts = (await p.ok("POST", "/simple/testsets/", {
    testset: { slug: `questions-${model}`, data: { testcases: questions.map((q) => ({ data: { input: q, expected: q } })) } },
  })).testset;
  const app = (await p.ok("POST", "/simple/applications/", {
    application: {
      slug: `support-${model}`,
      data: {
        uri: "agenta:builtin:completion:v0",
        parameters: { prompt: { messages: [{ role: "user", content: "{{input}}" }], llm_config: { model: `openai/${model}` } } },
      },
    },
  })).application;
  const judge = (await p.ok("POST", "/simple/evaluators/", {
    evaluator: { slug: `exact-${model}`, data: { uri: "agenta:builtin:auto_exact_match:v0", parameters: { correct_answer_key: "expected" } } },
  })).evaluator;
  const before = stub.requests.length;
  const { evaluation } = await p.ok("POST", "/simple/evaluations/", {
    evaluation: { data: { testset_steps: [ts.revision_id], application_steps: [app.revision_id], evaluator_steps: [judge.revision_id] } },
  });
  const done = await finished(evaluation.id);
  const { progress } = await p.ok("GET", `/simple/evaluations/${evaluation.id}/progress`);
  const { results } = await p.ok("POST", "/evaluations/results/query", { result: { run_id: evaluation.id, status: "failure" } });
  return { done, progress, failed: results, calls: stub.requests.length - before };
}

describe("provider failures in a server-run evaluation", () => {
  it("tries a call again when the provider closed the connection without answering, and records only the outcome", { timeout: 30_000 }, async () => {
    const { done, progress, calls } = await evaluate("stub-reset-once");
    expect(done.data.status).toBe("success");
    expect(progress).toMatchObject({ scenarios: 3, succeeded: 3, failed: 0, cells: { invoked: 6, failed: 0 } });
    expect(calls).toBe(6); // each question: the reset call, then the answered one
  });

  it("tries a call again when the provider answered a 5xx", { timeout: 30_000 }, async () => {
    const { done, progress, calls } = await evaluate("stub-500-once");
    expect(done.data.status).toBe("success");
    expect(progress).toMatchObject({ succeeded: 3, cells: { invoked: 6, failed: 0 } });
    expect(calls).toBe(6);
  });

  it("records a refusal that trying again cannot cure at once, without retrying it", { timeout: 30_000 }, async () => {
    const { done, progress, failed, calls } = await evaluate("stub-401");
    expect(done.data.status).toBe("failure");
    expect(progress).toMatchObject({ scenarios: 3, failed: 3, cells: { invoked: 3, failed: 3 } });
    expect(calls).toBe(3);
    expect(failed.map((r: { error: { message: string } }) => r.error.message)).toEqual(Array(3).fill(expect.stringContaining("rejected the API key")));
  });
});
