import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { screenshot, signIn, startConsoleServer, useBrowser, type ConsoleServer } from "./support.ts";
import { finishedEvaluation } from "../support/evaluations.ts";

/** Capitals, with Peru answered wrongly by the first version of the application and rightly by the second. */
const script = (peru: string) =>
  `function run(inputs) { return ({France: 'Paris', Japan: 'Tokyo', Peru: '${peru}'})[inputs.country]; }`;

describe("console: evaluations", () => {
  const browser = useBrowser();
  let server: ConsoleServer;
  const ids: Record<string, string> = {};

  /** Polls the run (bounded) until the server has finished it. */
  const finished = (id: string) => finishedEvaluation((path) => server.api("GET", path), id);

  beforeAll(async () => {
    server = await startConsoleServer();
    const rows = [["France", "Paris"], ["Japan", "Tokyo"], ["Peru", "Lima"]].map(([country, answer]) => ({ data: { country, answer } }));
    const ts = (await server.api("POST", "/simple/testsets/", { testset: { slug: "capitals", data: { testcases: rows } } })).testset;
    ids.testsetRevision = ts.revision_id;
    const app = (await server.api("POST", "/simple/applications/", {
      application: { slug: "geo", data: { uri: "svc:custom:code:v0", script: script("Cusco") } },
    })).application;
    ids.app = app.id;
    ids.appV1 = app.revision_id;
    const fixed = await server.api("POST", "/applications/revisions/commit", {
      application_revision_commit: { application_id: app.id, data: { uri: "svc:custom:code:v0", script: script("Lima") } },
    });
    ids.appV2 = fixed.application_revision.id;
    const exact = (await server.api("POST", "/simple/evaluators/", {
      evaluator: { slug: "exact", data: { uri: "agenta:builtin:auto_exact_match:v0", parameters: { correct_answer_key: "answer" } } },
    })).evaluator;
    ids.exact = exact.revision_id;
    // The mock workflow waits a little, then passes: the run is seen running before it ends.
    const slow = (await server.api("POST", "/simple/evaluators/", {
      evaluator: { slug: "slow-pass", data: { uri: "agenta:custom:mock:v0", parameters: { key: "delay", kwargs: { seconds: 0.6, then: "pass" } } } },
    })).evaluator;
    ids.slow = slow.revision_id;
    // Slow enough that the run is still going when its page has loaded and Stop is pressed, even on a loaded machine.
    const slower = (await server.api("POST", "/simple/evaluators/", {
      evaluator: {
        slug: "slow-5s",
        data: { uri: "agenta:custom:mock:v0", parameters: { key: "delay", kwargs: { seconds: 5, then: "pass" } } },
      },
    })).evaluator;
    ids.slower = slower.revision_id;
  });
  afterAll(async () => server?.close());

  it("starts a run from the form, follows its progress to the end, and shows its metrics and scenarios", async () => {
    const { page } = browser;
    await signIn(page, server, "/evaluations");
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Evaluations" }).waitFor();
    await page.getByText("No evaluations yet").waitFor();
    await page.getByRole("button", { name: "New evaluation" }).click();
    await page.waitForURL(/\/evaluations\?new=1$/);
    await page.getByLabel("Name").fill("first try");
    await page.getByLabel("Testset revision").selectOption({ label: "capitals v1" });
    await page.getByLabel("Application revision").selectOption({ label: "geo v1" });
    await expect(page.getByRole("button", { name: "Start evaluation" }).isDisabled()).resolves.toBe(true); // no evaluator yet
    await page.getByLabel("exact v1").check();
    await page.getByLabel("slow-pass v1").check();
    await page.getByRole("button", { name: "Start evaluation" }).click();
    await page.waitForURL(/\/evaluations\/[0-9a-f-]{36}$/);
    ids.run1 = page.url().split("/").pop()!;
    await page.getByRole("heading", { level: 1, name: /first try/ }).waitFor();
    // Live: the page shows the run before it has ended, then its end without a reload.
    await expect(page.locator("h1 .ev-status").textContent()).resolves.toMatch(/^(queued|running)$/);
    await page.getByRole("button", { name: "Stop" }).waitFor();
    await page.locator("h1 .ev-status", { hasText: "success" }).waitFor({ timeout: 30_000 });
    await page.locator("dl.facts").getByText("3/3", { exact: true }).waitFor();
    const facts = await page.locator("dl.facts").textContent();
    expect(facts).toContain("capitals v1");
    expect(facts).toContain("geo v1");
    expect(facts).toContain("exact v1");
    // Metrics per evaluator: exact match passed 2 of 3; the application's latency is measured.
    const exactMetrics = page.getByRole("region", { name: "Metrics of exact v1" });
    await exactMetrics.getByRole("row").filter({ hasText: /^success/ }).getByText("66.7% (2/3)").waitFor();
    const appMetrics = page.getByRole("region", { name: "Metrics of geo v1" });
    await appMetrics.getByRole("row").filter({ hasText: "latency (ms)" }).waitFor();
    await expect(appMetrics.getByRole("row").filter({ hasText: "errors" }).textContent()).resolves.toContain("3"); // count
    // Scenarios: inputs, the application's output, each evaluator's verdict and the trace.
    const rows = page.getByRole("table", { name: /Scenarios of/ }).locator("tbody tr");
    await expect(rows.count()).resolves.toBe(3);
    // The end of a run reloads its scenarios: wait for that reload rather than read the rows the run had while live.
    await expect.poll(() => rows.filter({ hasText: "pending" }).count(), { timeout: 10_000 }).toBe(0);
    const peru = rows.filter({ hasText: "Peru" });
    await peru.filter({ hasText: "Cusco" }).waitFor();
    await expect(peru.locator(".ev-failed", { hasText: "fail" }).count()).resolves.toBe(1); // exact match
    await expect(peru.locator(".ev-pass", { hasText: "pass" }).count()).resolves.toBe(1); // slow-pass
    await expect(peru.getByRole("button", { name: /Copy trace id [0-9a-f]{32}/ }).count()).resolves.toBe(1);
    await expect(rows.filter({ hasText: "France" }).locator(".ev-pass").count()).resolves.toBe(2);
    await expect(page.getByRole("button", { name: "Stop" }).count()).resolves.toBe(0);
    await page.setViewportSize({ width: 1280, height: 1250 }); // the metrics and the scenarios in one picture
    await screenshot(page, "evaluation-run");
    await page.setViewportSize({ width: 1280, height: 800 });
    // Closing freezes the run; it can be reopened.
    await page.getByRole("button", { name: "Close" }).click();
    await page.locator("h1 .badge", { hasText: "closed" }).waitFor();
    expect((await server.api("GET", `/simple/evaluations/${ids.run1}`)).evaluation.flags.is_closed).toBe(true);
    await page.getByRole("button", { name: "Reopen" }).click();
    await page.getByRole("button", { name: "Close" }).waitFor();
    expect((await server.api("GET", `/simple/evaluations/${ids.run1}`)).evaluation.flags.is_closed).toBe(false);
  });

  it("lists runs with their pinned revisions, filters by status, and stops a running one", async () => {
    const created = await server.api("POST", "/simple/evaluations/", {
      evaluation: { name: "fixed Peru", data: { testset_steps: [ids.testsetRevision], application_steps: [ids.appV2], evaluator_steps: [ids.exact] } },
    });
    ids.run2 = created.evaluation.id;
    await finished(ids.run2);
    const { page } = browser;
    await signIn(page, server, "/evaluations");
    const table = page.getByRole("table", { name: "Evaluation runs" });
    await table.getByRole("link", { name: "fixed Peru" }).waitFor();
    const rows = table.locator("tbody tr");
    await expect(rows.count()).resolves.toBe(2);
    await expect(rows.first().textContent()).resolves.toContain("fixed Peru"); // newest first
    const second = rows.filter({ hasText: "first try" });
    await expect(second.textContent()).resolves.toMatch(/capitals v1.*geo v1.*exact v1.*slow-pass v1/);
    await second.getByText("3/3", { exact: true }).waitFor();
    await screenshot(page, "evaluations");
    await page.getByLabel("Status").selectOption("failure");
    await page.waitForURL(/\?status=failure$/);
    await page.getByText("No failure evaluations").waitFor();
    await page.getByLabel("Status").selectOption("success");
    await table.getByRole("link", { name: "first try" }).waitFor();
    await expect(rows.count()).resolves.toBe(2);

    // A long run is stopped from its page: what has not run is cancelled.
    const slow = await server.api("POST", "/simple/evaluations/", {
      evaluation: {
        name: "slow",
        data: { testset_steps: [ids.testsetRevision], application_steps: [ids.appV1], evaluator_steps: [ids.slower] },
      },
    });
    await page.goto(`${server.url}/evaluations/${slow.evaluation.id}`);
    await page.getByRole("button", { name: "Stop" }).click();
    await page.locator("h1 .ev-status", { hasText: "cancelled" }).waitFor();
    await page.getByRole("button", { name: "Close" }).waitFor();
    expect((await server.api("GET", `/simple/evaluations/${slow.evaluation.id}`)).evaluation.data.status).toBe("cancelled");
  });

  it("compares two runs: metric deltas and the testcase whose result changed", async () => {
    const { page } = browser;
    await signIn(page, server, `/evaluations/${ids.run2}`);
    await page.getByRole("heading", { level: 1, name: /fixed Peru/ }).waitFor();
    await page.getByLabel("Compare with").selectOption({ label: "first try (success)" });
    await page.getByRole("button", { name: "Compare" }).click();
    await page.waitForURL(`${server.url}/evaluations/compare?runs=${ids.run1}%2C${ids.run2}`);
    await page.getByRole("heading", { name: "Compare runs" }).waitFor();
    const metrics = page.getByRole("table", { name: "Metrics per run" });
    const success = metrics.getByRole("row").filter({ hasText: "evaluator exact" }).filter({ hasText: /success/ });
    await expect(success.textContent()).resolves.toMatch(/0\.667.*1\s*\+0\.333/);
    await page.getByText("3 testcases in every run, 0 not; 1 changed").waitFor();
    const changed = page.getByRole("table", { name: "Testcases whose results changed" }).locator("tbody tr");
    await expect(changed.count()).resolves.toBe(1);
    const text = await changed.textContent();
    expect(text).toContain("Peru");
    expect(text).toContain("Cusco");
    expect(text).toContain("Lima");
    await screenshot(page, "evaluation-compare");
    // The run names link back to the runs.
    await page.getByRole("link", { name: "first try" }).click();
    await page.waitForURL(`${server.url}/evaluations/${ids.run1}`);
    // One run is not a comparison.
    await page.goto(`${server.url}/evaluations/compare?runs=${ids.run1}`);
    await page.getByText("Pick two runs").waitFor();
  });

  it("keeps the rows loaded with Load more while a live run refreshes its scenarios", async () => {
    const rows = Array.from({ length: 30 }, (_, i) => ({ data: { country: `Country ${i}`, answer: "-" } }));
    const testset = { slug: "thirty", data: { testcases: rows } };
    const ts = (await server.api("POST", "/simple/testsets/", { testset })).testset;
    const pause = (await server.api("POST", "/simple/evaluators/", {
      evaluator: {
        slug: "pause-2s",
        data: { uri: "agenta:custom:mock:v0", parameters: { key: "delay", kwargs: { seconds: 2, then: "pass" } } },
      },
    })).evaluator;
    const run = await server.api("POST", "/simple/evaluations/", {
      evaluation: {
        name: "thirty",
        data: { testset_steps: [ts.revision_id], application_steps: [ids.appV2], evaluator_steps: [pause.revision_id] },
      },
    });
    const { page } = browser;
    await signIn(page, server, `/evaluations/${run.evaluation.id}`);
    const table = page.getByRole("table", { name: /Scenarios of/ }).locator("tbody tr");
    await page.getByRole("button", { name: "Load more" }).click();
    await expect.poll(() => table.count()).toBe(30);
    // Live still (30 scenarios, 8 at a time, 2 s each): the refreshes that follow read both pages again.
    await expect(page.locator("h1 .ev-status").textContent()).resolves.toMatch(/^(queued|running)$/);
    await page.locator("h1 .ev-status", { hasText: "success" }).waitFor({ timeout: 30_000 });
    await expect.poll(() => table.filter({ hasText: "pending" }).count(), { timeout: 10_000 }).toBe(0);
    await expect(table.count()).resolves.toBe(30);
    await expect(table.filter({ hasText: "Country 29" }).count()).resolves.toBe(1);
    await expect(page.getByRole("button", { name: "Load more" }).count()).resolves.toBe(0);
  });

  it("reads well at phone width in dark mode", async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, colorScheme: "dark", isMobile: true });
    await page.goto(server.signInLink);
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    await page.goto(`${server.url}/evaluations/${ids.run1}`);
    await page.locator("h1 .ev-status", { hasText: "success" }).waitFor();
    await page.getByRole("table", { name: /Scenarios of/ }).locator("tbody tr").first().waitFor();
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390); // wide tables scroll inside their frame
    await screenshot(page, "evaluation-run-phone-dark");
  });

  it("reads runs at a glance: scores listed, a 0% run not green, failed scenarios, a scenario's trace", async () => {
    // Every answer wrong: exact match passes none of the three.
    const wrong = (await server.api("POST", "/simple/applications/", {
      application: {
        slug: "always-wrong", data: { uri: "svc:custom:code:v0", script: "function run() { return 'Nowhere'; }" },
      },
    })).application;
    const zero = await server.api("POST", "/simple/evaluations/", {
      evaluation: {
        name: "all wrong",
        data: {
          testset_steps: [ids.testsetRevision], application_steps: [wrong.revision_id], evaluator_steps: [ids.exact],
        },
      },
    });
    await finished(zero.evaluation.id);
    const { page } = browser;
    await signIn(page, server, "/evaluations");
    const table = page.getByRole("table", { name: "Evaluation runs" });
    const zeroRow = table.locator("tbody tr").filter({ has: page.getByRole("link", { name: "all wrong" }) });
    await zeroRow.getByText("exact success 0%").waitFor();
    await expect(zeroRow.locator(".ev-status").textContent()).resolves.toBe("0% pass");
    await expect(zeroRow.locator(".ev-status-failure").count()).resolves.toBe(1);
    const fixedRow = table.locator("tbody tr").filter({ has: page.getByRole("link", { name: "fixed Peru" }) });
    await fixedRow.getByText("exact success 100%").waitFor();
    await expect(fixedRow.locator(".ev-status-success").textContent()).resolves.toBe("success");
    const firstRow = table.locator("tbody tr").filter({ has: page.getByRole("link", { name: "first try" }) });
    await firstRow.getByText("exact success 66.7%").waitFor();
    await expect(firstRow.textContent()).resolves.toContain("slow-pass success 100%");
    await expect(firstRow.locator(".ev-status-partial").textContent()).resolves.toBe("success");
    await page.setViewportSize({ width: 1280, height: 700 });
    await screenshot(page, "evaluations-scores");
    await page.setViewportSize({ width: 1280, height: 800 });

    // The run's page: its badge, the failed scenarios only, and a scenario's trace.
    await page.goto(`${server.url}/evaluations/${ids.run1}`);
    await page.getByRole("heading", { level: 1, name: /first try/ }).waitFor();
    const scenarios = page.getByRole("table", { name: /Scenarios of/ }).locator("tbody tr");
    await expect.poll(() => scenarios.count()).toBe(3);
    await page.getByText("1 of 3 loaded scenarios failed").waitFor();
    await page.getByLabel("Failed only").check();
    await page.waitForURL(/[?&]show=failed$/);
    await expect.poll(() => scenarios.count()).toBe(1);
    await expect(scenarios.textContent()).resolves.toContain("Peru");
    await scenarios.getByRole("button", { name: /Open the trace of .*Peru/ }).click();
    await page.waitForURL(/[?&]trace=[0-9a-f]{32}$/);
    const trace = page.getByRole("dialog", { name: "Scenario trace" });
    await trace.getByRole("region", { name: "Trace" }).waitFor();
    await expect(trace.locator("pre").nth(1).textContent()).resolves.toContain("Cusco");
    await expect(trace.textContent()).resolves.toContain("Peru");
    await screenshot(page, "evaluation-trace");
    await trace.getByRole("button", { name: "Close trace" }).click();
    await expect(page.getByRole("dialog", { name: "Scenario trace" }).count()).resolves.toBe(0);
    await page.getByLabel("Failed only").uncheck();
    await expect.poll(() => scenarios.count()).toBe(3);
    // Each scenario links to its trace's page in Traces: the application's span, its inputs and output.
    const view = scenarios.filter({ hasText: "Peru" }).getByRole("link", { name: /View the trace of .*Peru/ });
    await view.click();
    await page.waitForURL(/\/traces\/[0-9a-f]{32}$/);
    await page.getByRole("list", { name: "Spans" }).getByRole("button").first().waitFor();
    const details = page.getByRole("region", { name: "Span details" });
    await expect(details.getByRole("region", { name: "Inputs" }).textContent()).resolves.toContain("Peru");
    await expect(details.getByRole("region", { name: "Outputs" }).textContent()).resolves.toContain("Cusco");
    await page.goBack();
    await expect.poll(() => scenarios.count()).toBe(3);

    // The run with every case wrong is not shown as a success on its page either.
    await page.goto(`${server.url}/evaluations/${zero.evaluation.id}`);
    await page.locator("h1 .ev-status-failure", { hasText: "0% pass" }).waitFor();
    await page.getByRole("region", { name: "Metrics of exact v1" }).getByText("0% (0/3)").waitFor();
    await page.getByLabel("Failed only").check();
    await expect.poll(() => scenarios.count()).toBe(3);
  });

  it("shows a running run's metrics as they accumulate, and the time it has left", async () => {
    // Batches of 5 scenarios, one at a time: the run's progress and metrics grow by 5 every 2 s.
    const small = await startConsoleServer({ TESSERA_EVALUATION_BATCH_SIZE: "5", TESSERA_EVALUATION_BATCHES: "1" });
    try {
      const rows = Array.from({ length: 30 }, (_, i) => ({ data: { country: `Country ${i}`, answer: "-" } }));
      const testset = { slug: "thirty", data: { testcases: rows } };
      const ts = (await small.api("POST", "/simple/testsets/", { testset })).testset;
      const app = (await small.api("POST", "/simple/applications/", {
        application: { slug: "geo", data: { uri: "svc:custom:code:v0", script: script("Lima") } },
      })).application;
      const pause = (await small.api("POST", "/simple/evaluators/", {
        evaluator: {
          slug: "pause-2s",
          data: { uri: "agenta:custom:mock:v0", parameters: { key: "delay", kwargs: { seconds: 2, then: "pass" } } },
        },
      })).evaluator;
      const run = await small.api("POST", "/simple/evaluations/", {
        evaluation: {
          name: "thirty by five",
          data: {
            testset_steps: [ts.revision_id], application_steps: [app.revision_id], evaluator_steps: [pause.revision_id],
          },
        },
      });
      const { page } = browser;
      await signIn(page, small, `/evaluations/${run.evaluation.id}`);
      const facts = page.locator("dl.facts");
      const region = page.getByRole("region", { name: "Metrics of pause-2s v1" });
      const score = region.getByRole("row").filter({ hasText: /^score/ });
      // Before the end: a count of scenarios done so far, between one batch and the whole run.
      await score.waitFor({ timeout: 20_000 });
      await expect(page.locator("h1 .ev-status").textContent()).resolves.toMatch(/^(queued|running)$/);
      await page.getByText("So far: the scenarios done yet; final when the run ends.").waitFor();
      const early = Number(await score.locator("td").nth(1).textContent());
      expect(early).toBeGreaterThanOrEqual(5);
      expect(early).toBeLessThan(30);
      await facts.getByText(/^about \d+ s left$/).waitFor({ timeout: 10_000 });
      await page.setViewportSize({ width: 1280, height: 1000 });
      await screenshot(page, "evaluation-run-live");
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.locator("h1 .ev-status", { hasText: "success" }).waitFor({ timeout: 40_000 });
      await expect.poll(() => score.locator("td").nth(1).textContent(), { timeout: 10_000 }).toBe("30");
      await expect(facts.getByText(/left$/).count()).resolves.toBe(0);
      await expect(page.getByText("So far: the scenarios done yet; final when the run ends.").count()).resolves.toBe(0);
    } finally {
      // The page stops reading (its scenarios' rows and traces) before its server goes away.
      await browser.page.goto("about:blank");
      await small.close();
    }
    // 30 scenarios, 2 s a batch of 5, one batch at a time, and the page followed throughout: 30-35 s alone, and
    // twice that when the machine's two cores are shared with the rest of the suite.
  }, 120_000);
});
