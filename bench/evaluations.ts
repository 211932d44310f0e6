import type { Api } from "./api.ts";
import type { Child } from "./processes.ts";
import type { Line } from "./report.ts";
import type { StubLlm } from "../test/support/stub-llm.ts";
import { uploadTestset } from "./testsets.ts";

/*
 * Line 8: evaluations against the loopback stub provider. Throughput is compared with the same number
 * of provider calls made directly at the same concurrency; the large run reports its time and peak RSS;
 * the re-run after a 10-row delta counts the provider calls it made.
 */

const GB = 1024 ** 3;
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
  const started = performance.now();
  const { evaluation } = await api.post("/simple/evaluations/", {
    evaluation: { flags: { is_cached: true }, data: { testset_steps: [testsetRevision], application_steps: [app], evaluator_steps: [judge] } },
  });
  for (;;) {
    const res = await fetch(`${api.url}/api/simple/evaluations/${evaluation.id}/progress`, { headers: { authorization: `ApiKey ${api.key}` } });
    const { progress } = await res.json();
    if (["success", "errors", "failure", "cancelled"].includes(progress.status)) {
      const ms = performance.now() - started;
      return { progress, ms, peak: server.peakRss(), failures: await failureSummary(api, evaluation.id) };
    }
    await new Promise((r) => setTimeout(r, 200));
  }
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

/** `calls` chat completions straight to the stub, `CONCURRENCY` at a time: the provider's own rate here. */
async function directCalls(baseUrl: string, calls: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next++ < calls) {
      const res = await fetch(`${baseUrl}/chat/completions`, {
        method: "POST",
        headers: { authorization: "Bearer sk-bench", "content-type": "application/json" },
        body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "system", content: "Answer the customer." }, { role: "user", content: "Where is my order?" }] }),
      });
      await res.arrayBuffer();
    }
  }));
  return performance.now() - started;
}

export async function evaluationLines(api: Api, server: Child, llm: StubLlm, smallRows: number, bigRows: number): Promise<Line[]> {
  const { app, judge } = await setUp(api);
  const lines: Line[] = [];

  const small = (await uploadTestset(api, server, smallRows, "eval-bench-small")).testset;
  const run = await evaluate(api, server, small.revisionId, app.revision_id, judge.revision_id);
  const directMs = await directCalls(llm.baseUrl, smallRows);
  const rate = (smallRows / run.ms) * 1000;
  const directRate = (smallRows / directMs) * 1000;
  lines.push({
    name: `8. evaluation throughput, ${smallRows.toLocaleString("en-US")} testcases (PGlite)`,
    figure: `${rate.toFixed(0)} scenarios/s`,
    baseline: `${directRate.toFixed(0)} provider calls/s (direct)`,
    ratio: rate / directRate,
    target: "≥ 0.5",
    met: rate / directRate >= 0.5 && run.progress.status === "success",
    note: `A completion application (the stub provider on 127.0.0.1) graded by auto_exact_match, run by the server with its default concurrency (${CONCURRENCY} invocations at once: 2 batches of 200 scenarios × 8); from POST /simple/evaluations/ to the run's end, including planning, traces, results and metrics. Baseline: the same number of chat completions sent straight to the stub, ${CONCURRENCY} at a time. Run status ${run.progress.status}, peak RSS ${mb(run.peak)}.${run.failures ? ` Failed results: ${run.failures}.` : ""}`,
  });

  const big = (await uploadTestset(api, server, bigRows, "eval-bench-big")).testset;
  const large = await evaluate(api, server, big.revisionId, app.revision_id, judge.revision_id);
  lines.push({
    name: `8. evaluation of ${bigRows.toLocaleString("en-US")} testcases (PGlite)`,
    figure: `${(large.ms / 1000).toFixed(0)} s, RSS ${mb(large.peak)}`,
    baseline: "—",
    ratio: null,
    target: "completes, RSS < 1 GB",
    met: large.progress.status === "success" && large.progress.done === bigRows && large.peak < GB,
    note: `${large.progress.done} scenarios, ${large.progress.cells.invoked} invocations (application and evaluator), status ${large.progress.status}${large.failures ? ` (failed results: ${large.failures})` : ""}. Scenarios are planned page by page of the testset's id list, at most 1,000 a statement; results are written a batch (200 scenarios) at a time; progress is read from counters the batches keep.`,
  });

  const before = llm.requests.length;
  const rows = Array.from({ length: 10 }, (_, i) => ({ data: { input: `A new question ${i}?`, expected: "-", category: "new" } }));
  const commit = await api.post("/testsets/revisions/commit", {
    testset_revision_commit: { testset_id: big.id, delta: { rows: { add: rows } } }, include_testcase_ids: false, include_testcases: false,
  });
  const again = await evaluate(api, server, commit.testset_revision.id, app.revision_id, judge.revision_id);
  const calls = llm.requests.length - before;
  lines.push({
    name: `8. re-run after a 10-row delta on ${bigRows.toLocaleString("en-US")} testcases (PGlite)`,
    figure: `${calls} provider calls, ${(again.ms / 1000).toFixed(1)} s`,
    baseline: `first run ${(large.ms / 1000).toFixed(0)} s`,
    ratio: again.ms / large.ms,
    target: "invocations = 10",
    met: calls === 10 && again.progress.status === "success",
    note: `With flags.is_cached the run reuses every result whose (application revision, testcase, evaluator revision) it has already computed: ${again.progress.cells.reused} cells reused, ${again.progress.cells.invoked} invoked (the 10 new rows, application and evaluator). The run still writes a scenario and results for every testcase of the revision (the reused ones point at the earlier traces): the ratio is this run's time over the first run's.`,
  });
  return lines;
}
