import { cpus } from "node:os";
import { createOpenAI } from "@ai-sdk/openai";
import { providerFetch } from "../src/runtime/net/guarded-request.ts";
import type { Api } from "./api.ts";
import { machineBusyCpu, postgresCpu, threadCpuOf, type Child } from "./processes.ts";
import { failed, type Line } from "./report.ts";
import type { StubLlm } from "../test/support/stub-llm.ts";
import { uploadTestset } from "./testsets.ts";

/*
 * Line 8: evaluations against the loopback stub provider. Throughput is compared with the same number
 * of provider calls made directly at the same concurrency; the large run reports its time and peak RSS;
 * the re-run after a 10-row delta counts the provider calls it made.
 */

const GB = 1024 ** 3;
const pct = (share: number) => `${(share * 100).toFixed(0)}%`;
const mb = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(0)} MB`;
/** The server's defaults: TESSERA_EVALUATION_BATCHES × TESSERA_EVALUATION_CONCURRENCY invocations at once. */
const CONCURRENCY = 2 * 8;

const prompt = {
  prompt: {
    messages: [{ role: "system", content: "Answer the customer." }, { role: "user", content: "{{input}}" }],
    llm_config: { model: "gpt-4o-mini" },
  },
};

async function setUp(api: Api) {
  const app = (await api.post("/simple/applications/", { application: { slug: "eval-bench-app", data: { uri: "agenta:builtin:completion:v0", parameters: prompt } } })).application;
  const judge = (await api.post("/simple/evaluators/", {
    evaluator: { slug: "eval-bench-exact", data: { uri: "agenta:builtin:auto_exact_match:v0", parameters: { correct_answer_key: "expected" } } },
  })).evaluator;
  return { app, judge };
}

async function evaluate(api: Api, server: Child, testsetRevision: string, app: string, judge: string) {
  server.resetPeak();
  const cpuBefore = threadCpuOf(server.pid);
  const others = { machine: machineBusyCpu(), postgres: postgresCpu(), bench: process.cpuUsage() };
  const started = performance.now();
  const { evaluation } = await api.post("/simple/evaluations/", {
    evaluation: { flags: { is_cached: true }, data: { testset_steps: [testsetRevision], application_steps: [app], evaluator_steps: [judge] } },
  });
  for (;;) {
    const url = `${api.url}/api/simple/evaluations/${evaluation.id}/progress`;
    const res = await fetch(url, { headers: { authorization: `ApiKey ${api.key}` } }).catch((error: Error) => {
      const after = `${((performance.now() - started) / 1000).toFixed(0)} s after it started`;
      // the cause (a reset, a refusal) is what the report shows after the message
      throw new Error(`polling the run's progress ${after}: ${error.message}`, { cause: error.cause });
    });
    const { progress } = await res.json();
    if (["success", "errors", "failure", "cancelled"].includes(progress.status)) {
      const ms = performance.now() - started;
      const threads = threadCpu(server.pid, cpuBefore);
      const bench = process.cpuUsage(others.bench);
      const elsewhere = {
        machine: machineBusyCpu() - others.machine, postgres: postgresCpu() - others.postgres, bench: bench.user + bench.system,
      };
      return { progress, ms, peak: server.peakRss(), threads, elsewhere, failures: await failureSummary(api, evaluation.id) };
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * The CPU the server's main thread and its busiest other thread (the evaluation thread: threads are not named in
 * /proc) used since `before`, in µs.
 */
function threadCpu(pid: number, before: Map<number, number>): { main: number; busiest: number } {
  const used = [...threadCpuOf(pid)].map(([tid, us]) => [tid, us - (before.get(tid) ?? 0)] as const);
  const main = used.find(([tid]) => tid === pid)?.[1] ?? NaN;
  const busiest = Math.max(0, ...used.filter(([tid]) => tid !== pid).map(([, us]) => us));
  return { main, busiest };
}

/** The errors of a run's failed results, by message and how often: why a run ended `errors`. */
async function failureSummary(api: Api, runId: string): Promise<string> {
  const { results } = await api.post("/evaluations/results/query", { result: { run_id: runId, status: "failure" }, windowing: { limit: 1000 } });
  const counts = new Map<string, number>();
  for (const r of results as { step_key: string; error: { message?: string; type?: string } | null }[]) {
    const key = `${r.step_key}: ${r.error?.type ?? ""} ${r.error?.message ?? "no error recorded"}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, n]) => `${n} × ${key}`).join("; ");
}

const MESSAGES = [{ role: "system" as const, content: "Answer the customer." }, { role: "user" as const, content: "Where is my order?" }];

/** Milliseconds to make `calls` calls, `CONCURRENCY` at a time. */
async function timeCalls(calls: number, call: () => PromiseLike<unknown>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next++ < calls) await call();
  }));
  return performance.now() - started;
}

/** `calls` chat completions straight to the stub: the provider's own rate here. */
const directCalls = (baseUrl: string, calls: number) => timeCalls(calls, async () => {
  const res = await fetch(`${baseUrl}/chat/completions`, {
    method: "POST",
    headers: { authorization: "Bearer sk-bench", "content-type": "application/json" },
    body: JSON.stringify({ model: "gpt-4o-mini", messages: MESSAGES }),
  });
  await res.arrayBuffer();
});

/** The same calls through the AI SDK's provider model, as the server makes them: what a script calling the stub itself reaches. */
function sdkCalls(baseUrl: string, calls: number): Promise<number> {
  const model = createOpenAI({ apiKey: "sk-bench", baseURL: baseUrl, fetch: providerFetch({ allowPrivate: true, keepAlive: true }) }).chat("gpt-4o-mini");
  const prompt = MESSAGES.map((m) => (m.role === "system" ? m : { role: m.role, content: [{ type: "text" as const, text: m.content }] }));
  return timeCalls(calls, () => model.doGenerate({ prompt }));
}

type Target = { app: { revision_id: string }; judge: { revision_id: string } };
type Testset = Awaited<ReturnType<typeof uploadTestset>>["testset"];

/** Rounds of the throughput line: a run and the direct calls, back to back, in alternating order. */
const ROUNDS = 3;

/**
 * Server throughput on `rows` testcases against the same number of direct calls to the stub, in `ROUNDS` rounds of
 * one of each, back to back and in alternating order, each run on a testset of its own: the machine's speed drifts
 * between measurements (as for the hot-path lines), and each round's ratio compares two made close together. The
 * line gives the median round's.
 */
async function throughputLine(name: string, api: Api, server: Child, llm: StubLlm, target: Target, rows: number) {
  const { app, judge } = target;
  // Warm-up, as every other line has: a run of a tenth of the size on its own testset, and as many calls each way.
  const warm = Math.ceil(rows / 10);
  const warmup = (await uploadTestset(api, server, warm, "eval-bench-warmup")).testset;
  await evaluate(api, server, warmup.revisionId, app.revision_id, judge.revision_id);
  await directCalls(llm.baseUrl, warm);
  await sdkCalls(llm.baseUrl, warm);
  type Round = { run: Awaited<ReturnType<typeof evaluate>>; directMs: number; ratio: number };
  const rounds: Round[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const testset = (await uploadTestset(api, server, rows, `eval-bench-round-${round}`)).testset;
    const evaluation = () => evaluate(api, server, testset.revisionId, app.revision_id, judge.revision_id);
    const direct = () => directCalls(llm.baseUrl, rows);
    const directFirst = round % 2 === 1;
    const before = directFirst ? await direct() : 0;
    const run = await evaluation();
    const directMs = directFirst ? before : await direct();
    rounds.push({ run, directMs, ratio: directMs / run.ms });
  }
  const sdkMs = await sdkCalls(llm.baseUrl, rows);
  const { run, directMs, ratio } = [...rounds].sort((a, b) => a.ratio - b.ratio)[ROUNDS >> 1]!;
  const rate = (rows / run.ms) * 1000;
  const directRate = (rows / directMs) * 1000;
  const sdkRate = (rows / sdkMs) * 1000;
  const statuses = rounds.map((r) => r.run.progress.status);
  const failures = rounds.map((r) => r.run.failures).filter(Boolean).join("; ");
  const each = rounds.map((r) => `${((rows / r.run.ms) * 1000).toFixed(0)}/${((rows / r.directMs) * 1000).toFixed(0)} = ${r.ratio.toFixed(2)}`);
  const perScenario = (us: number) => `${(us / rows).toFixed(0)}`;
  const byRound = (us: (r: Round) => number) => rounds.map((r) => perScenario(us(r))).join(", ");
  const cpu = `main ${byRound((r) => r.run.threads.main)}, evaluation thread ${byRound((r) => r.run.threads.busiest)}; `
    + `the bench process (the stub provider, and the progress polls) ${byRound((r) => r.run.elsewhere.bench)}, `
    + `PostgreSQL's processes ${byRound((r) => r.run.elsewhere.postgres)}; the machine's ${cpus().length} cores `
    + `busy ${rounds.map((r) => pct(r.run.elsewhere.machine / (cpus().length * r.run.ms * 1000))).join(", ")} of the run`;
  return {
    name,
    figure: `${rate.toFixed(0)} scenarios/s`,
    baseline: `${directRate.toFixed(0)} provider calls/s (direct)`,
    ratio,
    target: "≥ 0.5",
    met: ratio >= 0.5 && statuses.every((s) => s === "success"),
    note: `A completion application (the stub provider on 127.0.0.1) graded by auto_exact_match, run by the server with its default concurrency (${CONCURRENCY} invocations at once on its evaluation thread: 2 batches of 200 scenarios × 8); from POST /simple/evaluations/ to the run's end, including planning, traces, results and metrics, after a warm-up run of ${warm.toLocaleString("en-US")} testcases. Baseline: the same number of chat completions sent straight to the stub with fetch, ${CONCURRENCY} at a time, after as many warm-up calls. ${ROUNDS} rounds of a run (each on a new testset of ${rows.toLocaleString("en-US")} testcases) and the direct calls, back to back in alternating order; the line is the median round's (scenarios/s against calls/s, each round: ${each.join(", ")}). For scale, not the target: the same calls made through the AI SDK's provider model (doGenerate over the server's own fetch, as the server calls it) from the bench process ran at ${sdkRate.toFixed(0)} calls/s (the server reached ${(rate / sdkRate).toFixed(2)} of that, with an evaluator, traces and results on top). Server CPU a scenario by round, in µs (from /proc, 10 ms ticks): ${cpu}. Run statuses ${statuses.join(", ")}, peak RSS ${mb(Math.max(...rounds.map((r) => r.run.peak)))}.${failures ? ` Failed results: ${failures}.` : ""}`,
  };
}

/** The large run: its time and the server's peak RSS. */
async function largeRun(name: string, api: Api, server: Child, { app, judge }: Target, rows: number) {
  const testset = (await uploadTestset(api, server, rows, "eval-bench-big")).testset;
  const run = await evaluate(api, server, testset.revisionId, app.revision_id, judge.revision_id);
  const line: Line = {
    name,
    figure: `${(run.ms / 1000).toFixed(0)} s, RSS ${mb(run.peak)}`,
    baseline: "—",
    ratio: null,
    target: "completes, RSS < 1 GB",
    met: run.progress.status === "success" && run.progress.done === rows && run.peak < GB,
    note: `${run.progress.done} scenarios, ${run.progress.cells.invoked} invocations (application and evaluator), status ${run.progress.status}${run.failures ? ` (failed results: ${run.failures})` : ""}. Scenarios are planned leaf chunk by leaf chunk of the testset's id list (each recorded, so that a later run can link it), at most 1,000 a statement; results are written a batch (200 scenarios) at a time; progress is read from counters the batches keep.`,
  };
  return { testset, ms: run.ms, line };
}

/** A 10-row delta on the large testset, then the same evaluation again: the provider calls it made. */
async function rerunLine(
  name: string, api: Api, server: Child, llm: StubLlm, { app, judge }: Target, first: { testset: Testset; ms: number },
): Promise<Line> {
  const before = llm.requests.length;
  const rows = Array.from({ length: 10 }, (_, i) => ({ data: { input: `A new question ${i}?`, expected: "-", category: "new" } }));
  const commit = await api.post("/testsets/revisions/commit", {
    testset_revision_commit: { testset_id: first.testset.id, delta: { rows: { add: rows } } },
    include_testcase_ids: false, include_testcases: false,
  });
  const again = await evaluate(api, server, commit.testset_revision.id, app.revision_id, judge.revision_id);
  const calls = llm.requests.length - before;
  const stored = again.progress.scenarios - again.progress.linked;
  return {
    name,
    figure: `${calls} provider calls, ${(again.ms / 1000).toFixed(1)} s, ${stored.toLocaleString("en-US")} scenarios stored`,
    baseline: `first run ${(first.ms / 1000).toFixed(0)} s`,
    ratio: again.ms / first.ms,
    target: "invocations = 10",
    met: calls === 10 && again.progress.status === "success",
    note: `With flags.is_cached the run reuses every result whose (application revision, testcase, evaluator revision) it has already computed: ${again.progress.cells.reused} cells reused, ${again.progress.cells.invoked} invoked (the 10 new rows, application and evaluator). The plan links each leaf chunk of the revision (about 512 testcases, content-defined) that the first run completed: one row a chunk, no scenario or result. Only the chunks the commit changed get rows of their own (${stored.toLocaleString("en-US")} of ${again.progress.scenarios.toLocaleString("en-US")} scenarios, with their results); there, a scenario whose every cell has an earlier result is stored done, pointing at the earlier traces, and batches run for the 10 new testcases. The run's metrics read its own results and merge the metrics the first run stored for each linked chunk. The ratio is this run's time over the first run's.`,
  };
}

/**
 * The three lines, those whose name `wanted` takes (the re-run needs the large run); one that fails is reported
 * FAILED (naming what failed), the lines measured before it kept.
 */
export async function evaluationLines(
  database: string, api: Api, server: Child, llm: StubLlm, smallRows: number, bigRows: number,
  wanted: (name: string) => boolean,
) {
  const lines: Line[] = [];
  const count = (n: number) => n.toLocaleString("en-US");
  const throughputName = `8. evaluation throughput, ${count(smallRows)} testcases (${database})`;
  const largeName = `8. evaluation of ${count(bigRows)} testcases (${database})`;
  const rerunName = `8. re-run after a 10-row delta on ${count(bigRows)} testcases (${database})`;
  if (![throughputName, largeName, rerunName].some(wanted)) return lines;
  const target = await setUp(api);
  const step = async (name: string, goal: string, measure: () => Promise<Line>, needed = false) => {
    if (!needed && !wanted(name)) return;
    try {
      lines.push(await measure());
    } catch (error) {
      lines.push(failed(name, goal, error));
    }
  };
  await step(throughputName, "≥ 0.5", () => throughputLine(throughputName, api, server, llm, target, smallRows));
  let large: Awaited<ReturnType<typeof largeRun>> | undefined;
  await step(largeName, "completes, RSS < 1 GB", async () => {
    large = await largeRun(largeName, api, server, target, bigRows);
    return large.line;
  }, wanted(rerunName));
  if (large) await step(rerunName, "invocations = 10", () => rerunLine(rerunName, api, server, llm, target, large!));
  return lines;
}
