import { provision, type Api } from "./api.ts";
import type { Child } from "./processes.ts";
import { median, type Line } from "./report.ts";
import { uploadTestset } from "./testsets.ts";

/*
 * Line 8 (turns): a 1-row evaluation of one project while another project has four large runs queued, against the
 * same run alone. The other project's runs invoke one call at a time within each batch (`concurrency.batch_size: 1`),
 * so each of their batches holds a slot for a long while: the case where a queue served first-come, first-served
 * made the small run wait for every batch queued before it.
 */

const TERMINAL = ["success", "errors", "failure", "cancelled"];
/** Runs of the other project, and rows each. */
const RUNS = 4;
/** Rounds of the small run alone: the baseline is their median. */
const ALONE = 3;

const prompt = {
  prompt: {
    messages: [{ role: "system", content: "Answer the customer." }, { role: "user", content: "{{input}}" }],
    llm_config: { model: "gpt-4o-mini" },
  },
};

/** A completion application on the stub provider, under `slug`: its revision id. */
async function application(api: Api, slug: string): Promise<string> {
  const body = { application: { slug, data: { uri: "agenta:builtin:completion:v0", parameters: prompt } } };
  return (await api.post("/simple/applications/", body)).application.revision_id;
}

async function startRun(api: Api, testsetRevision: string, app: string, concurrency?: object): Promise<string> {
  const data = { testset_steps: [testsetRevision], application_steps: [app], ...(concurrency && { concurrency }) };
  return (await api.post("/simple/evaluations/", { evaluation: { data } })).evaluation.id;
}

async function progressOf(api: Api, id: string) {
  const res = await fetch(`${api.url}/api/simple/evaluations/${id}/progress`, {
    headers: { authorization: `ApiKey ${api.key}` },
  });
  return (await res.json()).progress as { status: string; scenarios: number; done: number };
}

/** Milliseconds from creating the run to seeing it ended (polled every 10 ms), and its status. */
async function timedRun(api: Api, testsetRevision: string, app: string): Promise<{ ms: number; status: string }> {
  const started = performance.now();
  const id = await startRun(api, testsetRevision, app);
  for (;;) {
    const { status } = await progressOf(api, id);
    if (TERMINAL.includes(status)) return { ms: performance.now() - started, status };
    if (performance.now() - started > 300_000) throw new Error(`the 1-row run ${id} did not end in 300 s`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The line: the small run's time next to the other project's runs, against its median time alone. */
export async function projectTurnsLine(name: string, server: Child, rows: number): Promise<Line> {
  const small = await provision(server.url);
  const large = await provision(server.url);
  const smallApp = await application(small, "turns-small-app");
  const one = (await small.post("/simple/testsets/", {
    testset: { slug: "turns-one-row", data: { testcases: [{ data: { input: "Where is my order?" } }] } },
  })).testset.revision_id;
  await timedRun(small, one, smallApp); // warm-up: the server's first evaluation starts its evaluation thread
  const alone = [];
  for (let i = 0; i < ALONE; i++) alone.push(await timedRun(small, one, smallApp));

  const largeApp = await application(large, "turns-large-app");
  const testsets = [];
  for (let i = 0; i < RUNS; i++) testsets.push((await uploadTestset(large, server, rows, `turns-large-${i}`)).testset);
  const queued = [];
  for (const testset of testsets) queued.push(await startRun(large, testset.revisionId, largeApp, { batch_size: 1 }));
  const beside = await timedRun(small, one, smallApp);
  const left = await Promise.all(queued.map(async (id) => {
    const { scenarios, done } = await progressOf(large, id);
    return rows - Math.min(done, scenarios);
  }));
  await Promise.all(queued.map((id) => large.post(`/simple/evaluations/${id}/stop`)));

  const baseMs = median(alone.map((r) => r.ms));
  const statuses = [...alone, beside].map((r) => r.status);
  const remaining = left.reduce((n, x) => n + x, 0);
  return {
    name,
    figure: `${(beside.ms / 1000).toFixed(2)} s beside ${RUNS} queued runs`,
    baseline: `${(baseMs / 1000).toFixed(2)} s alone`,
    ratio: beside.ms / baseMs,
    target: "< 5 s",
    met: beside.ms < 5_000 && statuses.every((s) => s === "success"),
    note: [
      `A 1-row evaluation (a completion application on the stub provider) of one project, created right after`,
      `another project queued ${RUNS} runs of ${rows.toLocaleString("en-US")} testcases each, every batch of theirs`,
      `invoking one call at a time (data.concurrency.batch_size: 1), against the median of ${ALONE} runs of it`,
      `alone after a warm-up run (${alone.map((r) => (r.ms / 1000).toFixed(2)).join(", ")} s); from POST`,
      `/simple/evaluations/ to its progress`,
      `reading an end state, polled every 10 ms. When it ended, ${remaining.toLocaleString("en-US")} of the other`,
      `project's ${(RUNS * rows).toLocaleString("en-US")} scenarios were still to run (those runs were then stopped).`,
      `Default server settings: 2 batches invoking per process, 4 claimed; TESSERA_EVALUATION_PROJECT_BATCHES 4.`,
      `Statuses: ${statuses.join(", ")}.`,
    ].join(" "),
  };
}
