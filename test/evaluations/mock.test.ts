import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestProject, type TestServer } from "../support/server.ts";
import { finishedEvaluation } from "../support/evaluations.ts";

let server: TestServer;
let p: TestProject;

beforeAll(async () => {
  server = await startTestServer({ TESSERA_MOCK_MAX_DELAY_MS: "2000" });
  p = await server.project();
});

afterAll(() => server.close());


/** The hosted runtime, at its own root (not under /api). */
const services = (path: string, payload: unknown) =>
  server.app.inject({
    method: "POST", url: `/services/${path}`, headers: { authorization: `ApiKey ${p.key}` }, payload: payload as object,
  });

const invokeMock = (parameters: unknown, data: Record<string, unknown> = {}) =>
  services("mock/v0/invoke", { data: { inputs: { country: "Peru" }, parameters, ...data } });

const finished = (id: string) => finishedEvaluation((path) => p.ok("GET", path), id);

describe("the mock workflow agenta:custom:mock:v0", () => {
  it("is listed as both an application template and an evaluator template, with its parameter schema", async () => {
    for (const family of ["applications", "evaluators"]) {
      const { templates } = await p.ok("GET", `/${family}/catalog/templates/`);
      const mock = templates.find((t: any) => t.key === "mock");
      expect(mock).toMatchObject({
        flags: { is_application: true, is_evaluator: true },
        data: { uri: "agenta:custom:mock:v0", schemas: { parameters: { required: ["key"] } } },
      });
      expect(mock.data.schemas.parameters.properties.key.enum).toEqual(
        expect.arrayContaining(["echo", "static", "pass", "fail", "score", "reflect", "error", "delay"]),
      );
    }
  });

  it("answers at /services/mock/v0/invoke with each behaviour's outputs", async () => {
    const outputs = async (parameters: unknown, data?: Record<string, unknown>) => {
      const res = await invokeMock(parameters, data);
      expect(res.statusCode).toBe(200);
      return res.json().data.outputs;
    };
    expect(await outputs({ key: "echo" })).toEqual({ country: "Peru" });
    expect(await outputs({ key: "static", kwargs: { output: { answer: "Lima" } } })).toEqual({ answer: "Lima" });
    expect(await outputs({ key: "pass" })).toEqual({ score: 1, success: true });
    expect(await outputs({ key: "fail" })).toEqual({ score: 0, success: false });
    const strict = { key: "score", kwargs: { score: 0.7, threshold: 0.8 } };
    expect(await outputs(strict)).toEqual({ score: 0.7, success: false });
    expect(await outputs({ key: "score", kwargs: { score: 0.7 } })).toEqual({ score: 0.7, success: true });
    expect(await outputs({ key: "reflect" }, { outputs: { answer: "Lima" } })).toEqual({ score: 1, success: true });
    const leaked = { outputs: { score: 1, success: true } };
    expect(await outputs({ key: "reflect" }, leaked)).toEqual({ score: 0, success: false });
    const wait = { key: "delay", kwargs: { seconds: 0.01, then: "fail" } };
    expect(await outputs(wait)).toEqual({ score: 0, success: false });
    expect(await outputs({ key: "delay", kwargs: { seconds: 0, then: "delay" } })).toEqual({ score: 1, success: true });
  });

  it("dispatches agenta: and svc: URIs of a stored revision to the mock", async () => {
    const app = (await p.ok("POST", "/simple/applications/", {
      application: { slug: "mock-echo", data: { uri: "agenta:custom:mock:v0", parameters: { key: "echo" } } },
    })).application;
    const res = await services("invoke", {
      data: { inputs: { q: "why?" } }, references: { application: { id: app.id } },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.outputs).toEqual({ q: "why?" });
    const inline = await services("invoke", {
      data: { inputs: {}, revision: { data: { uri: "svc:custom:mock:v0", parameters: { key: "pass" } } } },
    });
    expect(inline.json().data.outputs).toEqual({ score: 1, success: true });
  });

  it("fails on `error` with its message, and refuses a missing or unknown key and a delay over the cap", async () => {
    const failed = await invokeMock({ key: "error", kwargs: { message: "boom" } });
    expect(failed.statusCode).toBe(500);
    expect(failed.json().status).toMatchObject({ message: "boom", type: expect.stringContaining("mock-error") });

    const missing = await invokeMock({ kwargs: {} });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().status.message).toMatch(/parameters\.key/);
    const unknown = await invokeMock({ key: "dance" });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().status.message).toMatch(/dance/);
    const badKwargs = await invokeMock({ key: "score", kwargs: { score: "high" } });
    expect(badKwargs.statusCode).toBe(400);

    const long = await invokeMock({ key: "delay", kwargs: { seconds: 3 } });
    expect(long.statusCode).toBe(400);
    expect(long.json().status.message).toMatch(/TESSERA_MOCK_MAX_DELAY_MS/);
  });

  it("runs a server-run evaluation as the application and as the evaluators", async () => {
    const ts = (await p.ok("POST", "/simple/testsets/", {
      testset: {
        slug: "mock-rows", data: { testcases: [{ data: { country: "France" } }, { data: { country: "Japan" } }] },
      },
    })).testset;
    const app = (await p.ok("POST", "/simple/applications/", {
      application: { slug: "mock-app", data: { uri: "agenta:custom:mock:v0", parameters: { key: "echo" } } },
    })).application;
    const judge = async (slug: string, parameters: object) =>
      (await p.ok("POST", "/simple/evaluators/", {
        evaluator: { slug, data: { uri: "agenta:custom:mock:v0", parameters } },
      })).evaluator;
    const reflect = await judge("mock-reflect", { key: "reflect" });
    const score = await judge("mock-score", { key: "score", kwargs: { score: 0.25, threshold: 0.5 } });
    const created = await p.ok("POST", "/simple/evaluations/", {
      evaluation: {
        data: {
          testset_steps: [ts.revision_id], application_steps: [app.revision_id],
          evaluator_steps: [reflect.revision_id, score.revision_id],
        },
      },
    });
    const done = await finished(created.evaluation.id);
    expect(done.data.status).toBe("success");

    const { run } = await p.ok("GET", `/evaluations/runs/${done.id}`);
    const [, appStep, reflectStep, scoreStep] = run.data.steps;
    const { results } = await p.ok("POST", "/evaluations/results/query", {
      result: { run_id: done.id, step_keys: [appStep.key, reflectStep.key, scoreStep.key] },
    });
    expect(results).toHaveLength(6);
    expect(results.every((r: any) => r.status === "success")).toBe(true);
    const traceOf = async (step: any) => {
      const rows = results.filter((r: any) => r.step_key === step.key);
      return Promise.all(rows.map(async (r: any) => (await p.ok("GET", `/traces/${r.trace_id}`)).trace.outputs));
    };
    expect(await traceOf(appStep)).toEqual(expect.arrayContaining([
      expect.objectContaining({ country: "France" }), expect.objectContaining({ country: "Japan" }),
    ]));
    // The application's outputs reached the evaluator, not a sibling evaluator's verdict.
    expect(await traceOf(reflectStep)).toEqual([{ score: 1, success: true }, { score: 1, success: true }]);
    expect(await traceOf(scoreStep)).toEqual([{ score: 0.25, success: false }, { score: 0.25, success: false }]);
    // Several traces in one call (what the console's run page reads), unknown ids left out, in the order asked.
    const traceIds = results.map((r: any) => r.trace_id);
    const batch = await p.ok("POST", "/traces/query", { trace_ids: [...traceIds, "f".repeat(32)] });
    expect(batch.count).toBe(6);
    expect(batch.traces.map((t: any) => t.trace_id)).toEqual(traceIds);
    expect(batch.traces.filter((t: any) => t.outputs?.score === 0.25)).toHaveLength(2);
    const bad = await p.call("POST", "/traces/query", { trace_ids: ["not-a-trace"] });
    expect(bad.statusCode).toBe(422);
    expect(JSON.stringify(bad.json().detail)).toContain("trace_ids");
    expect((await p.call("POST", "/traces/query", { trace_ids: [] })).statusCode).toBe(422);

    const runWide = { metrics: { run_id: done.id, scenario_ids: false } };
    const metrics = (await p.ok("POST", "/evaluations/metrics/query", runWide)).metrics[0];
    expect(metrics.data[scoreStep.key]["attributes.ag.data.outputs.success"]).toMatchObject({
      type: "binary", count: 2, freq: [{ value: true, count: 0 }, { value: false, count: 2 }],
    });
  });
});
