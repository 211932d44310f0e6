import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uuidv7 } from "../../src/ids/uuid-v7.ts";
import { startTestServer, type TestProject, type TestServer } from "../support/server.ts";

let server: TestServer;
let p: TestProject;

beforeAll(async () => {
  server = await startTestServer();
  p = await server.project();
});

afterAll(() => server.close());

const ids = (rows: { id: string }[]) => rows.map((r) => r.id);

/** A human evaluator: what annotators fill in, no handler of its own. */
async function humanEvaluator(slug: string) {
  return (await p.ok("POST", "/simple/evaluators/", {
    evaluator: {
      slug,
      data: {
        schemas: {
          outputs: { type: "object", properties: { approved: { type: "boolean" }, note: { type: "string" } } },
        },
      },
    },
  })).evaluator;
}

async function testset(slug: string, countries: string[]) {
  const ts = (await p.ok("POST", "/simple/testsets/", {
    testset: { slug, data: { testcases: countries.map((country) => ({ data: { country } })) } },
  })).testset;
  const { testcases } = await p.ok("POST", "/testcases/query", { testset_revision_ref: { id: ts.revision_id } });
  return { ts, testcaseIds: ids(testcases) };
}

const assigned = async (queueId: string, user?: string, scenario?: object, route = "simple/queues") => {
  const body = { queue: user ? { user_id: user } : null, scenario };
  return (await p.ok("POST", `/${route}/${queueId}/scenarios/query`, body)).scenarios;
};
const results = async (runId: string, stepKey: string) =>
  (await p.ok("POST", "/evaluations/results/query", { result: { run_id: runId, step_key: stepKey } })).results;
const createSimple = (data: object) => p.call("POST", "/simple/queues/", { queue: { data } });
const sendTestcases = (queueId: string, testcaseIds: string[]) =>
  p.call("POST", `/simple/queues/${queueId}/testcases/`, { testcase_ids: testcaseIds });

describe("annotation queues from testcases (POST /simple/queues/)", () => {
  it("creates a queue run with human steps, assigns scenarios in batches, takes annotations, and closes", async () => {
    const judge = await humanEvaluator("review");
    const { testcaseIds } = await testset("queue-rows", ["France", "Japan", "Peru", "Chile"]);
    const alice = p.userId;
    const bob = uuidv7();

    const created = await p.ok("POST", "/simple/queues/", {
      queue: {
        name: "review capitals",
        data: {
          kind: "testcases", evaluators: [judge.revision_id], assignments: [[alice, bob]], settings: { batch_size: 2 },
        },
      },
    });
    const queue = created.queue;
    expect(queue).toMatchObject({
      name: "review capitals", flags: { is_default: false, is_sequential: true },
      data: { kind: "testcases", assignments: [[alice, bob]], settings: { batch_size: 2, batch_offset: null } },
    });
    const { run } = await p.ok("GET", `/evaluations/runs/${queue.run_id}`);
    expect(run.flags).toMatchObject({ is_queue: true, has_human: true, has_testcases: true, is_closed: false });
    expect(run.data.steps.map((s: any) => [s.key.split("-")[0], s.type, s.origin])).toEqual([
      ["testcases", "input", "custom"], ["evaluator", "annotation", "human"],
    ]);
    expect(run.data.steps[1].references.evaluator_revision.id).toBe(judge.revision_id);
    const humanStep = run.data.steps[1].key;

    // Testcases sent to the queue become its scenarios, each with an input result naming its testcase.
    const sent = await sendTestcases(queue.id, testcaseIds);
    expect(sent.json()).toEqual({ count: 1, queue_id: queue.id });
    const all = await assigned(queue.id);
    expect(all).toHaveLength(4);
    const inputs = await results(run.id, "testcases");
    expect(inputs.map((r: any) => r.testcase_id).sort()).toEqual([...testcaseIds].sort());

    // Sequential batches of two: alice takes the 1st and 3rd, bob the 2nd and 4th.
    const mine = await assigned(queue.id, alice);
    const bobs = await assigned(queue.id, bob);
    expect(ids(mine)).toEqual([all[0].id, all[2].id]);
    expect(ids(bobs)).toEqual([all[1].id, all[3].id]);
    expect(ids(await assigned(queue.id, alice, undefined, "evaluations/queues"))).toEqual(ids(mine));
    expect(await assigned(queue.id, uuidv7())).toEqual([]);
    const elsewhere = await p.call("POST", `/simple/queues/${queue.id}/scenarios/query`, { queue: { id: uuidv7() } });
    expect(elsewhere.statusCode).toBe(400);

    // Annotating is writing the human step's result; then the scenario is closed.
    for (const [who, scenarios] of [[alice, mine], [bob, bobs]] as const) {
      await p.ok("POST", "/evaluations/results/", {
        results: scenarios.map((sc: any) => ({
          run_id: run.id, scenario_id: sc.id, step_key: humanStep, status: "success",
          meta: { annotator: who, approved: true },
        })),
      });
      const closed = scenarios.map((sc: any) => ({ id: sc.id, status: "success" }));
      await p.ok("PATCH", "/evaluations/scenarios/", { scenarios: closed });
    }
    expect(await assigned(queue.id, alice, { status: "pending" })).toEqual([]);
    expect(ids(await assigned(queue.id, alice, { statuses: ["success"] }))).toEqual(ids(mine));
    // The scenario filter's statuses are a list: a bare string is refused, naming the field.
    const bare = await p.call("POST", `/simple/queues/${queue.id}/scenarios/query`, { scenario: { statuses: "success" } });
    expect(bare.statusCode).toBe(422);
    expect(JSON.stringify(bare.json().detail)).toContain("statuses");
    const annotations = await results(run.id, humanStep);
    expect(annotations).toHaveLength(4);
    expect(annotations.every((r: any) => r.status === "success")).toBe(true);

    // A closed run takes nothing more: no annotation, no testcase.
    await p.ok("POST", `/evaluations/runs/${run.id}/close`, undefined);
    const late = await p.call("POST", "/evaluations/results/", {
      results: [{ run_id: run.id, scenario_id: mine[0].id, step_key: humanStep, status: "failure" }],
    });
    expect(late.statusCode).toBe(409);
    const moreCases = await sendTestcases(queue.id, testcaseIds.slice(0, 1));
    expect(moreCases.statusCode).toBe(409);
    expect(await assigned(queue.id)).toHaveLength(4);
  });

  it("builds testset queues with their scenarios, lists and deletes them", async () => {
    const judge = await humanEvaluator("triage");
    const { ts } = await testset("queue-set", ["Spain", "Italy", "Kenya"]);
    const { queue } = await p.ok("POST", "/simple/queues/", {
      queue: { name: "triage", data: { testsets: [ts.revision_id], evaluators: { [judge.revision_id]: "human" } } },
    });
    // No scoping: the run's default queue, where everyone sees every scenario.
    expect(queue).toMatchObject({
      flags: { is_default: true, is_sequential: false }, data: { kind: "testsets", testsets: [ts.revision_id] },
    });
    expect(await assigned(queue.id, p.userId)).toHaveLength(3);
    const fetched = (await p.ok("GET", `/simple/queues/${queue.id}`)).queue;
    expect(fetched).toMatchObject({ id: queue.id, run_id: queue.run_id });
    const listed = await p.ok("POST", "/simple/queues/query", { queue: { kind: "testsets" } });
    expect(ids(listed.queues)).toContain(queue.id);
    const others = await p.ok("POST", "/simple/queues/query", { queue: { kind: "testcases" } });
    expect(ids(others.queues)).not.toContain(queue.id);
    // Only testcase queues take testcases; the detail is the {message} object the reference's clients read.
    const direct = await sendTestcases(queue.id, [uuidv7()]);
    expect(direct.statusCode).toBe(400);
    expect(direct.json().detail.message)
      .toBe("Cannot add testcases directly to a source-backed queue. Create a direct testcases queue instead.");

    // A default queue goes with its run.
    expect(await p.ok("DELETE", `/simple/queues/${queue.id}`)).toEqual({ count: 1, queue_id: queue.id });
    expect((await p.ok("GET", `/evaluations/runs/${queue.run_id}`)).count).toBe(0);
    expect((await p.ok("GET", `/simple/queues/${queue.id}`)).count).toBe(0);
  });

  it("annotates traces: a traces queue takes stored traces, sent over OTLP or hosted, each as a scenario", async () => {
    const judge = await humanEvaluator("trace-review");
    const queue = (await p.ok("POST", "/simple/queues/", {
      queue: { name: "traces", data: { kind: "traces", evaluators: [judge.revision_id] } },
    })).queue;
    expect(queue.data.kind).toBe("traces");
    const run = (await p.ok("GET", `/evaluations/runs/${queue.run_id}`)).run;
    expect(run.flags).toMatchObject({ has_traces: true, has_human: true, is_queue: true });

    // One trace sent over OTLP/JSON, one from a hosted invocation.
    const sent = "5b8efff798038103d269b633813fc60c";
    const otlp = { resourceSpans: [{ scopeSpans: [{ spans: [{
      traceId: sent, spanId: "eee19b7ec3c1b174", name: "chat", kind: 2,
      startTimeUnixNano: "1764201600000000000", endTimeUnixNano: "1764201601000000000",
    }] }] }] };
    const ingested = await p.call("POST", "/otlp/v1/traces", JSON.stringify(otlp), { "content-type": "application/json" });
    expect(ingested.statusCode).toBe(200);
    const echo = (await p.ok("POST", "/simple/applications/", {
      application: { slug: "trace-echo", data: { uri: "agenta:custom:mock:v0", parameters: { key: "echo" } } },
    })).application;
    const invoked = await server.app.inject({
      method: "POST", url: `${new URL(echo.data.url).pathname}/invoke`, headers: { authorization: `ApiKey ${p.key}` },
      payload: { data: { inputs: { q: "hi" } } },
    });
    const hosted = invoked.json().trace_id as string;

    const send = (traceIds: string[], id = queue.id) => p.call("POST", `/simple/queues/${id}/traces/`, { trace_ids: traceIds });
    const both = await send([sent, hosted]);
    expect(both.json(), both.body).toEqual({ count: 1, queue_id: queue.id });
    const inputs = await results(queue.run_id, "traces");
    expect(inputs.map((r: any) => r.trace_id).sort()).toEqual([sent, hosted].sort());
    expect(await assigned(queue.id)).toHaveLength(2);

    const unknown = await send(["0123456789abcdef0123456789abcdef"]);
    expect(unknown.statusCode).toBe(404);
    expect((await send(["trace-1"])).json().detail.message).toMatch(/is not a trace id/);
    const other = await server.project();
    expect((await other.call("POST", `/simple/queues/${queue.id}/traces/`, { trace_ids: [sent] })).json().count).toBe(0);
    const testcases = (await p.ok("POST", "/simple/queues/", {
      queue: { data: { kind: "testcases", evaluators: [judge.revision_id] } },
    })).queue;
    expect((await send([sent], testcases.id)).json().detail.message).toMatch(/^Cannot add traces to a queue whose scenarios/);
    expect((await sendTestcases(queue.id, [uuidv7()])).statusCode).toBe(400);
  });

  it("refuses queues without a human evaluator, with unsupported sources or unknown testcases", async () => {
    const judge = await humanEvaluator("strict");
    const auto = await createSimple({ kind: "testcases", evaluators: { [judge.revision_id]: "auto" } });
    expect(auto.statusCode).toBe(422);
    expect(auto.json().detail.message).toMatch(/at least one human evaluator/);
    // Without evaluators there is nothing to annotate: no queue, as the reference answers.
    const none = await createSimple({ kind: "testcases" });
    expect(none.statusCode).toBe(200);
    expect(none.json()).toMatchObject({ count: 0, queue: null });
    const queries = await createSimple({ kind: "queries", evaluators: [judge.revision_id] });
    expect(queries.statusCode).toBe(422);
    expect(queries.json().detail[0].msg).toMatch(/kind='queries' requires query sources/);
    const noSource = await createSimple({ kind: "testsets", evaluators: [judge.revision_id] });
    expect(noSource.statusCode).toBe(422);
    expect(noSource.json().detail[0].msg).toMatch(/kind='testsets' requires testset sources/);
    const badBatch = await createSimple({
      kind: "testcases", evaluators: [judge.revision_id], settings: { batch_size: 0 },
    });
    expect(badBatch.statusCode).toBe(422);
    const before = (await p.ok("POST", "/simple/queues/query", {})).count;

    const { queue } = (await createSimple({ kind: "testcases", evaluators: [judge.revision_id] })).json();
    const unknown = await sendTestcases(queue.id, [uuidv7()]);
    expect(unknown.statusCode).toBe(404);
    expect(await assigned(queue.id)).toEqual([]);
    expect((await p.ok("POST", "/simple/queues/query", {})).count).toBe(before + 1);
    // Another project sees none of it.
    const other = await server.project();
    expect((await other.ok("GET", `/simple/queues/${queue.id}`)).count).toBe(0);
    const foreign = await other.call("POST", `/simple/queues/${queue.id}/testcases/`, { testcase_ids: [uuidv7()] });
    expect(foreign.json()).toEqual({ count: 0, queue_id: null });
  });
});

describe("queues of a run (/evaluations/queues/)", () => {
  async function runWithScenarios(count: number) {
    const { runs } = await p.ok("POST", "/evaluations/runs/", {
      runs: [{
        name: "manual",
        data: {
          steps: [{ key: "human", type: "annotation", origin: "human", references: {} }],
        },
      }],
    });
    const items = Array.from({ length: count }, () => ({ run_id: runs[0].id }));
    const { scenarios } = await p.ok("POST", "/evaluations/scenarios/", { scenarios: items });
    return { run: runs[0], scenarioIds: ids(scenarios) };
  }

  it("creates, edits, queries and deletes queues; a default queue is unscoped and stays with its run", async () => {
    const { run, scenarioIds } = await runWithScenarios(3);
    const [a, b] = [uuidv7(), uuidv7()];
    const bad = await p.call("POST", "/evaluations/queues/", {
      queues: [{ run_id: run.id, flags: { is_default: true }, data: { user_ids: [[a]] } }],
    });
    expect(bad.statusCode).toBe(422);
    expect(JSON.stringify(bad.json().detail)).toContain("A default queue covers the whole run");
    expect((await p.call("POST", "/evaluations/queues/", { queues: [{ run_id: uuidv7() }] })).statusCode).toBe(404);

    // The run has a human step, so it was given its default queue when it was created.
    const def = (await p.ok("GET", `/evaluations/runs/${run.id}/queues/default`)).queue;
    const { queues: [scoped] } = await p.ok("POST", "/evaluations/queues/", {
      queues: [{ run_id: run.id, name: "two repeats", data: { user_ids: [[a], [b]], scenario_ids: scenarioIds.slice(0, 2) } }],
    });
    expect(def).toMatchObject({ run_id: run.id, name: "manual", status: "running", flags: { is_default: true, is_sequential: false } });
    // Repeats × users: a annotates every scenario of the queue in repeat 0, b in repeat 1.
    for (const user of [a, b]) {
      expect(ids(await assigned(scoped.id, user, undefined, "evaluations/queues"))).toEqual(scenarioIds.slice(0, 2));
    }
    expect(await assigned(def.id, a, undefined, "evaluations/queues")).toHaveLength(3);

    const rename = { queue: { name: "renamed", status: "running" } };
    const edited = await p.ok("PATCH", `/evaluations/queues/${scoped.id}`, rename);
    expect(edited.queue).toMatchObject({
      name: "renamed", status: "running", run_id: run.id, data: { user_ids: [[a], [b]] },
    });
    const byUser = await p.ok("POST", "/evaluations/queues/query", { queue: { run_id: run.id, user_id: b } });
    expect(ids(byUser.queues)).toEqual([scoped.id]);
    const defaultsOnly = { queue: { run_id: run.id, flags: { is_default: true } } };
    const defaults = await p.ok("POST", "/evaluations/queues/query", defaultsOnly);
    expect(ids(defaults.queues)).toEqual([def.id]);

    // One default queue a run: a second is refused, the default cannot be demoted, and keeping its flag is an edit.
    const second = await p.call("POST", "/evaluations/queues/", { queues: [{ run_id: run.id, flags: { is_default: true } }] });
    expect(second.statusCode).toBe(409);
    const promoted = await p.call("PATCH", `/evaluations/queues/${scoped.id}`, { queue: { flags: { is_default: true } } });
    expect(promoted.statusCode).toBe(422); // a scoped queue cannot be the default
    const demoted = await p.call("PATCH", `/evaluations/queues/${def.id}`, { queue: { id: def.id, flags: { is_default: false } } });
    expect(demoted.statusCode).toBe(409);
    const kept = await p.ok("PATCH", `/evaluations/queues/${def.id}`, { queue: { name: "renamed", flags: { is_default: true } } });
    expect(kept.queue).toMatchObject({ name: "renamed", flags: { is_default: true } });

    expect((await p.call("DELETE", `/evaluations/queues/${def.id}`)).statusCode).toBe(409);
    expect(await p.ok("DELETE", `/evaluations/queues/${scoped.id}`)).toEqual({ count: 1, queue_id: scoped.id });
    expect((await p.ok("GET", `/evaluations/queues/${scoped.id}`)).count).toBe(0);
    await p.ok("DELETE", `/evaluations/runs/${run.id}`);
    expect((await p.ok("GET", `/evaluations/queues/${def.id}`)).count).toBe(0);
  });

  it("gives a run with a human step a default queue, and takes it away with the step, as the reference reconciles them", async () => {
    const input = { key: "input", type: "input", origin: "custom", references: { testset_revision: { id: uuidv7() } } };
    const human = { key: "annotation-human", type: "annotation", origin: "human", references: {}, inputs: [{ key: "input" }] };
    const auto = { key: "annotation-auto", type: "annotation", origin: "auto", references: {}, inputs: [{ key: "input" }] };
    const defaultQueue = async (runId: string) => (await p.ok("GET", `/evaluations/runs/${runId}/queues/default`)).queue;
    const patch = async (run: any, steps: object[], flags?: object) =>
      (await p.ok("PATCH", `/evaluations/runs/${run.id}`, { run: { id: run.id, name: run.name, flags, data: { steps } } })).run;

    const [run] = (await p.ok("POST", "/evaluations/runs/", { runs: [{ name: "review", data: { steps: [input, human] } }] })).runs;
    expect(run.flags).toMatchObject({ has_human: true, has_auto: false, has_evaluators: true, has_testsets: true, is_queue: true });
    const first = await defaultQueue(run.id);
    expect(first.flags.is_default).toBe(true);
    expect((await patch(run, [input, human, auto])).flags).toMatchObject({ is_queue: true, has_auto: true });
    expect((await defaultQueue(run.id)).id).toBe(first.id);

    const withoutHuman = await patch(run, [input, auto]);
    expect(withoutHuman.flags).toMatchObject({ has_human: false, is_queue: false });
    expect(await defaultQueue(run.id)).toBeNull();
    expect((await patch(run, [input, human])).flags.is_queue).toBe(true);
    expect(await defaultQueue(run.id)).not.toBeNull();

    // is_queue is derived: a client that plants it on a run without a human step does not keep it.
    const [plain] = (await p.ok("POST", "/evaluations/runs/", { runs: [{ name: "auto only", data: { steps: [input, auto] } }] })).runs;
    expect(plain.flags).toMatchObject({ has_human: false, is_queue: false });
    expect((await patch(plain, [input, auto], { is_queue: true })).flags.is_queue).toBe(false);
    expect(await defaultQueue(plain.id)).toBeNull();
  });

  it("prunes the results of a step an edit removes, and the scenarios left with none", async () => {
    const input = { key: "input", type: "input", origin: "custom", references: {} };
    const human = { key: "annotation", type: "annotation", origin: "human", references: {}, inputs: [{ key: "input" }] };
    const [run] = (await p.ok("POST", "/evaluations/runs/", { runs: [{ name: "prune", data: { steps: [input, human] } }] })).runs;
    const { scenarios } = await p.ok("POST", "/evaluations/scenarios/", { scenarios: [{ run_id: run.id }, { run_id: run.id }] });
    await p.ok("POST", "/evaluations/results/", {
      results: [
        { run_id: run.id, scenario_id: scenarios[0].id, step_key: "input", repeat_idx: 0 },
        { run_id: run.id, scenario_id: scenarios[0].id, step_key: "annotation", repeat_idx: 0 },
        { run_id: run.id, scenario_id: scenarios[1].id, step_key: "annotation", repeat_idx: 0 },
      ],
    });
    const edit = (steps: object[]) => p.ok("PATCH", `/evaluations/runs/${run.id}`, { run: { id: run.id, name: run.name, data: { steps } } });
    const left = async () => ({
      results: (await p.ok("POST", "/evaluations/results/query", { result: { run_id: run.id } })).results.map((r: any) => r.step_key),
      scenarios: (await p.ok("POST", "/evaluations/scenarios/query", { scenario: { run_id: run.id } })).scenarios.map((s: any) => s.id),
    });
    await edit([input]);
    expect(await left()).toEqual({ results: ["input"], scenarios: [scenarios[0].id] });
    await edit([]);
    expect(await left()).toEqual({ results: [], scenarios: [] });
  });

  it("spreads scenarios among a repeat's users by id: each scenario to exactly one of them", async () => {
    const { run, scenarioIds } = await runWithScenarios(40);
    const users = [uuidv7(), uuidv7(), uuidv7()];
    const { queues } = await p.ok("POST", "/evaluations/queues/", {
      queues: [{ run_id: run.id, data: { user_ids: [users] } }],
    });
    const shareOf = async (u: string) => ids(await assigned(queues[0].id, u, undefined, "evaluations/queues"));
    const shares = await Promise.all(users.map(shareOf));
    expect(shares.flat().sort()).toEqual([...scenarioIds].sort());
    expect(shares.every((share) => share.length > 0)).toBe(true);
    // The same queue answers the same way every time.
    expect(ids(await assigned(queues[0].id, users[0], undefined, "evaluations/queues"))).toEqual(shares[0]);

    // Sequential with an offset: batch slots start at the offset.
    const { queues: [seq] } = await p.ok("POST", "/evaluations/queues/", {
      queues: [{
        run_id: run.id, flags: { is_sequential: true },
        data: { user_ids: [users.slice(0, 2)], batch_size: 4, batch_offset: 2 },
      }],
    });
    const first = ids(await assigned(seq.id, users[0], undefined, "evaluations/queues"));
    // Slots (2 + i) % 4: the first user holds slots 0 and 1, i.e. the 3rd and 4th of every four.
    expect(first.slice(0, 2)).toEqual([scenarioIds[2], scenarioIds[3]]);
    expect(first).toHaveLength(20);

    await p.ok("POST", `/evaluations/runs/${run.id}/close`, undefined);
    expect((await p.call("POST", "/evaluations/queues/", { queues: [{ run_id: run.id }] })).statusCode).toBe(409);
  });
});
