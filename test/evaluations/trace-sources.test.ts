import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestProject, type TestServer } from "../support/server.ts";
import { finishedEvaluation } from "../support/evaluations.ts";
import { randomHex } from "../tracing/otlp-support.ts";

/*
 * Evaluations whose source is a query: the traces it picks from the span store become the scenarios, each graded
 * on what its root span recorded; a live evaluation does so window after window and never ends by itself.
 */
let server: TestServer;
let p: TestProject;

beforeAll(async () => {
  server = await startTestServer({ TESSERA_LIVE_EVALUATION_INTERVAL_SECONDS: "1" });
  p = await server.project();
});
afterAll(() => server.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An invocation trace of a geography app: its inputs, the answer it gave, and the tag the queries select on. */
async function trace(country: string, answer: string, output: string, tag: string): Promise<string> {
  const traceId = randomHex(16);
  const now = Date.now();
  const res = await p.call("POST", "/tracing/spans/ingest", {
    spans: [{
      trace_id: traceId, span_id: randomHex(8), span_name: "geo", span_kind: "SPAN_KIND_SERVER",
      start_time: new Date(now).toISOString(), end_time: new Date(now + 5).toISOString(), status_code: "STATUS_CODE_OK",
      attributes: { ag: { type: { trace: "invocation", span: "workflow" }, data: { inputs: { country, answer }, outputs: output } }, tag },
    }],
  });
  expect(res.statusCode).toBe(202);
  return traceId;
}

const query = async (slug: string, tag: string, traceType = "invocation") => (await p.ok("POST", "/simple/queries/", {
  query: {
    slug, data: {
      filtering: {
        operator: "and",
        conditions: [
          { field: "trace_type", operator: "is", value: traceType },
          { field: "attributes", key: "tag", operator: "is", value: tag },
        ],
      },
    },
  },
})).query;

const exactMatch = async (slug: string) => (await p.ok("POST", "/simple/evaluators/", {
  evaluator: { slug, data: { uri: "agenta:builtin:auto_exact_match:v0", parameters: { correct_answer_key: "answer" } } },
})).evaluator;

const scenarios = async (runId: string) => (await p.ok("POST", "/evaluations/scenarios/query", { scenario: { run_id: runId } })).scenarios;
const results = async (runId: string) => (await p.ok("POST", "/evaluations/results/query", { result: { run_id: runId } })).results;

describe("a query as an evaluation's source", () => {
  it("grades every trace the query picks on its root span's inputs and outputs, then ends", async () => {
    const ids = [await trace("France", "Paris", "Paris", "batch"), await trace("Peru", "Lima", "Cusco", "batch")];
    await trace("Japan", "Tokyo", "Tokyo", "other");
    const q = await query("batch-geo", "batch");
    const judge = await exactMatch("batch-exact");
    const { evaluation } = await p.ok("POST", "/simple/evaluations/", {
      evaluation: { name: "from traces", data: { query_steps: [q.revision_id], evaluator_steps: { [judge.revision_id]: "auto" } } },
    });
    expect(evaluation.flags).toMatchObject({ has_queries: true, is_live: false });
    expect(Object.keys(evaluation.data.query_steps)).toEqual([q.revision_id]);
    const done = await finishedEvaluation((path) => p.ok("GET", path), evaluation.id);
    expect(done.data.status).toBe("success");
    const rows = await results(evaluation.id);
    const inputs = rows.filter((r: any) => r.step_key.startsWith("query-"));
    expect(inputs.map((r: any) => r.trace_id).sort()).toEqual([...ids].sort());
    expect(inputs.every((r: any) => r.testcase_id === null)).toBe(true);
    const graded = rows.filter((r: any) => r.step_key.startsWith("evaluator-"));
    expect(graded).toHaveLength(2);
    expect(graded.every((r: any) => r.testcase_id === null && r.trace_id)).toBe(true);
    expect(graded.every((r: any) => r.status === "success")).toBe(true);
    // France's recorded answer matches, Peru's does not: one grade each way.
    const { metrics } = await p.ok("POST", "/evaluations/metrics/query", { metrics: { run_id: evaluation.id } });
    const step = metrics.find((m: any) => m.scenario_id === null).data[graded[0].step_key];
    expect(step["attributes.ag.data.outputs.success"].freq).toEqual(expect.arrayContaining([
      expect.objectContaining({ value: true, count: 1 }), expect.objectContaining({ value: false, count: 1 }),
    ]));
  });

  it("ends at once with nothing to grade when the query picks no trace", async () => {
    const q = await query("empty-geo", "nothing-has-this-tag");
    const judge = await exactMatch("empty-exact");
    const { evaluation } = await p.ok("POST", "/simple/evaluations/", {
      evaluation: { data: { query_steps: [q.revision_id], evaluator_steps: { [judge.revision_id]: "auto" } } },
    });
    const done = await finishedEvaluation((path) => p.ok("GET", path), evaluation.id);
    expect(done.data.status).toBe("success");
    expect(await scenarios(evaluation.id)).toHaveLength(0);
  });

  it("live: grades the traces of each window after it starts, stays running, and stops", async () => {
    await trace("Chile", "Santiago", "Santiago", "live"); // before the run: never graded
    const q = await query("live-geo", "live");
    const judge = await exactMatch("live-exact");
    const { evaluation } = await p.ok("POST", "/simple/evaluations/", {
      evaluation: { flags: { is_live: true }, data: { query_steps: [q.revision_id], evaluator_steps: { [judge.revision_id]: "auto" } } },
    });
    expect(evaluation.flags).toMatchObject({ is_live: true, is_active: true });
    expect(evaluation.data.status).toBe("running");
    const later = await trace("Spain", "Madrid", "Madrid", "live");
    let rows: any[] = [];
    for (let i = 0; i < 200 && rows.filter((r) => r.step_key.startsWith("evaluator-")).length === 0; i++) {
      await sleep(100);
      rows = await results(evaluation.id);
    }
    const inputs = rows.filter((r) => r.step_key.startsWith("query-"));
    expect(inputs.map((r) => r.trace_id)).toEqual([later]);
    expect(inputs[0].timestamp).toBeTruthy();
    expect(inputs[0].interval).toBe(1);
    await sleep(1500);
    const still = (await p.ok("GET", `/simple/evaluations/${evaluation.id}`)).evaluation;
    expect(still.data.status).toBe("running");
    expect(still.flags.is_active).toBe(true);
    const stopped = (await p.ok("POST", `/simple/evaluations/${evaluation.id}/stop`)).evaluation;
    expect(stopped.flags.is_active).toBe(false);
  });

  it("makes no live run of a query that does not pick invocation traces", async () => {
    const q = await query("annotations-geo", "live", "annotation");
    const judge = await exactMatch("annotations-exact");
    const res = await p.ok("POST", "/simple/evaluations/", {
      evaluation: { flags: { is_live: true }, data: { query_steps: [q.revision_id], evaluator_steps: [judge.revision_id] } },
    });
    expect(res.count).toBe(0);
  });

  it("a query-backed annotation queue holds a scenario per trace the query picks", async () => {
    const ids = [await trace("Italy", "Rome", "Rome", "queue"), await trace("Egypt", "Cairo", "Cairo", "queue")];
    const q = await query("queue-geo", "queue");
    const human = await exactMatch("queue-human");
    const { queue } = await p.ok("POST", "/simple/queues/", { queue: { data: { queries: [q.revision_id], evaluators: [human.revision_id] } } });
    expect(queue.data).toMatchObject({ kind: "queries", queries: [q.revision_id] });
    const inputs = (await results(queue.run_id)).filter((r: any) => r.step_key.startsWith("query-"));
    expect(inputs.map((r: any) => r.trace_id).sort()).toEqual([...ids].sort());
    const refused = await p.call("POST", `/simple/queues/${queue.id}/traces/`, { trace_ids: [ids[0]] });
    expect(refused.statusCode).toBe(400);
    const mixed = await p.call("POST", "/simple/queues/", {
      queue: { data: { kind: "traces", queries: [q.revision_id], evaluators: [human.revision_id] } },
    });
    expect(mixed.statusCode).toBe(422);
    expect(mixed.body).toContain("query-backed queues must use kind='queries'");
  });
});
