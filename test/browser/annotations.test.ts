import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { screenshot, signIn, startConsoleServer, useBrowser, type ConsoleServer } from "./support.ts";

const OUTPUTS = {
  type: "object",
  properties: {
    approved: { type: "boolean" },
    score: { type: "integer", minimum: 1, maximum: 5 },
    topic: { type: "string", enum: ["geography", "history"] },
    note: { type: "string" },
  },
  required: ["approved"],
};

describe("console: human annotation", () => {
  const browser = useBrowser();
  let server: ConsoleServer;
  let judge: { id: string; revision_id: string };
  let queue: { id: string; run_id: string };
  let run: { id: string };

  beforeAll(async () => {
    server = await startConsoleServer();
    const me = (await server.api("GET", "/profile")).id as string;
    judge = (await server.api("POST", "/simple/evaluators/", {
      evaluator: { slug: "reviewer", name: "Reviewer", data: { schemas: { outputs: OUTPUTS } } },
    })).evaluator;
    const testset = (await server.api("POST", "/simple/testsets/", {
      testset: {
        slug: "capitals", data: { testcases: ["France", "Japan", "Peru"].map((country) => ({ data: { country } })) },
      },
    })).testset;
    queue = (await server.api("POST", "/simple/queues/", {
      queue: {
        name: "Review capitals", data: { kind: "testcases", evaluators: [judge.revision_id], assignments: [[me]] },
      },
    })).queue;
    await server.api("POST", `/simple/queues/${queue.id}/testcases/`, { testcase_ids: testset.data.testcase_ids });
    // A run whose application answers, and a human evaluator step: annotated from the run's page.
    const app = (await server.api("POST", "/simple/applications/", {
      application: { slug: "echo", data: { uri: "agenta:custom:mock:v0", parameters: { key: "echo" } } },
    })).application;
    run = (await server.api("POST", "/simple/evaluations/", {
      evaluation: {
        name: "Echo reviewed",
        data: {
          testset_steps: [testset.revision_id], application_steps: [app.revision_id],
          evaluator_steps: { [judge.revision_id]: "human" },
        },
      },
    })).evaluation;
    // The application's three answers are in before any test opens the run (or the setup says what it saw).
    let results: { trace_id: string | null; step_key: string; status: string }[] = [];
    for (let i = 0; i < 240; i++) {
      results = (await server.api("POST", "/evaluations/results/query", { result: { run_id: run.id } })).results;
      if (results.filter((r) => r.step_key.startsWith("application") && r.trace_id).length === 3) return;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`The run's application steps did not all answer in 60 s: ${JSON.stringify(results)}`);
  });
  afterAll(async () => server?.close());

  const humanResults = async (runId: string) => {
    const { results } = await server.api("POST", "/evaluations/results/query", { result: { run_id: runId } });
    return results.filter((r: { step_key: string }) => r.step_key.startsWith("evaluator"));
  };

  it("lists the queues, goes scenario by scenario through a form made from the evaluator's schema", async () => {
    const { page } = browser;
    await signIn(page, server, "/");
    await page.getByRole("link", { name: "Annotations", exact: true }).click();
    const queues = page.getByRole("table", { name: "Annotation queues" });
    await queues.getByRole("link", { name: "Review capitals" }).waitFor();
    await queues.getByRole("link", { name: "Review capitals" }).click();

    await page.getByText("0 of 3 annotated").waitFor();
    await page.getByText("Scenario 1 of 3").waitFor();
    await page.locator(".an-inputs").getByText("France").waitFor();
    // Required fields are asked for before anything is sent.
    await page.getByRole("button", { name: "Submit and next" }).click();
    await page.getByRole("alert").filter({ hasText: "approved is required." }).waitFor();
    expect(await humanResults(queue.run_id)).toHaveLength(0);

    await page.getByRole("group", { name: "approved (required)" }).getByLabel("Yes").check();
    await page.getByLabel("score").fill("4");
    await page.getByLabel("topic").selectOption("geography");
    await page.getByLabel("note").fill("Paris, right.");
    await expect(page.getByRole("alert").count()).resolves.toBe(0);
    await screenshot(page, "annotation");
    await page.getByRole("button", { name: "Submit and next" }).click();
    await page.getByText("1 of 3 annotated").waitFor();
    await page.getByText("Scenario 2 of 3").waitFor();
    await page.locator(".an-inputs").getByText("Japan").waitFor();

    const [written] = await humanResults(queue.run_id);
    expect(written).toMatchObject({ status: "success" });
    const { annotation } = await server.api("GET", `/annotations/${written.trace_id}`);
    expect(annotation.data.outputs).toEqual({ approved: true, score: 4, topic: "geography", note: "Paris, right." });
    expect(annotation.references.evaluator_revision.id).toBe(judge.revision_id);

    // Back to the first: the form shows what was submitted, and an edit changes the same annotation.
    await page.getByRole("button", { name: "Previous" }).click();
    await page.getByText("Scenario 1 of 3").waitFor();
    await expect.poll(() => page.getByLabel("score").inputValue()).toBe("4");
    await page.getByRole("group", { name: "approved (required)" }).getByLabel("No").check();
    await page.getByRole("button", { name: "Submit and next" }).click();
    await page.getByText("Scenario 2 of 3").waitFor();
    const again = await humanResults(queue.run_id);
    expect(again).toHaveLength(1);
    expect((await server.api("GET", `/annotations/${again[0].trace_id}`)).annotation.data.outputs.approved).toBe(false);
  });

  it("opens a run's annotation from its page, showing the application's output", async () => {
    const { page } = browser;
    await signIn(page, server, `/evaluations/${run.id}`);
    await page.getByRole("link", { name: "Annotate" }).click();
    await page.waitForURL(/\/annotations\/[0-9a-f-]+/);
    await page.getByText("0 of 3 annotated").waitFor();
    await page.locator(".an-output").waitFor();
    expect(await page.locator(".an-output").textContent()).toContain("France");
    await page.getByRole("group", { name: "approved (required)" }).getByLabel("Yes").check();
    await screenshot(page, "annotation-run");
    await page.getByRole("button", { name: "Submit and next" }).click();
    await page.getByText("1 of 3 annotated").waitFor();
    const [written] = await humanResults(run.id);
    const { annotation } = await server.api("GET", `/annotations/${written.trace_id}`);
    expect(annotation.links.invocation.trace_id).toMatch(/^[0-9a-f]{32}$/);
  });
});
