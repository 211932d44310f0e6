import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStubLlm, type StubLlm } from "../support/stub-llm.ts";
import { screenshot, signIn, startConsoleServer, useBrowser, type ConsoleServer } from "./support.ts";

const completion = (model: string, content = "Capital of {{country}}?") => ({
  uri: "svc:builtin:completion:v0",
  parameters: { prompt: { messages: [{ role: "system", content: "Answer briefly." }, { role: "user", content }], llm_config: { model }, template_format: "curly" } },
});

describe("console: playground", () => {
  const browser = useBrowser();
  let server: ConsoleServer;
  let llm: StubLlm;
  const apps: Record<string, { id: string; variant_id: string; revision_id: string }> = {};

  beforeAll(async () => {
    llm = await startStubLlm();
    // The stub stands in for OpenAI: the server's own provider settings point at it.
    server = await startConsoleServer({ OPENAI_BASE_URL: llm.baseUrl, OPENAI_API_KEY: "sk-test" });
    for (const [slug, name, model] of [["capitals", "Capitals", "gpt-4o-mini"], ["slow", "Slow", "openai/stub-slow"], ["refused", "Refused", "openai/stub-401"]]) {
      apps[slug] = (await server.api("POST", "/simple/applications/", { application: { slug, name, data: completion(model) } })).application;
    }
    await server.api("POST", "/simple/testsets/", {
      testset: { slug: "countries", name: "Countries", data: { testcases: [{ data: { country: "Japan", answer: "Tokyo" } }, { data: { country: "Peru", answer: "Lima" } }] } },
    });
  });
  afterAll(async () => {
    await server?.close();
    await llm?.close();
  });

  it("runs a revision with typed inputs, streams the output in, and opens its trace", async () => {
    const { page } = browser;
    await signIn(page, server);
    await page.getByRole("link", { name: "Playground" }).click();
    await page.getByRole("heading", { name: "Playground" }).waitFor();
    await page.getByLabel("Application").selectOption({ label: "Capitals" });
    // The newest revision is chosen, and its inputs are the variables its prompt names.
    await page.waitForURL(`${server.url}/playground?app=${apps.capitals.id}&revision=${apps.capitals.revision_id}`);
    await page.getByLabel("country").fill("France");
    await page.getByRole("button", { name: "Run" }).click();
    const output = page.locator(".pg-output-text");
    await page.locator('.pg-output-text[data-state="finished"]').waitFor();
    await expect(output.textContent()).resolves.toBe("Capital of France?");
    const sent = llm.requests.at(-1)!.body;
    expect(sent.stream).toBe(true);
    expect(sent.messages.at(-1)).toEqual({ role: "user", content: "Capital of France?" });

    await page.getByRole("button", { name: "Show trace" }).click();
    const trace = page.getByRole("region", { name: "Trace" });
    await trace.getByText("Capital of France?").first().waitFor();
    await expect(trace.textContent()).resolves.toContain('"country": "France"');
    await expect(trace.textContent()).resolves.toMatch(/Status200/);
    const traceId = (await page.getByRole("button", { name: /^Copy trace id/ }).getAttribute("aria-label"))!.split(" ").at(-1)!;
    const stored = await server.api("GET", `/traces/${traceId}`);
    expect(stored.trace.inputs).toEqual({ country: "France" });
    expect(stored.trace.outputs).toBe("Capital of France?");
    await screenshot(page, "playground");
    // The run's page in Traces: the invocation and its model call, with the prompt sent and the tokens.
    await page.getByRole("link", { name: "Open in Traces" }).click();
    await page.waitForURL(`${server.url}/traces/${traceId}`);
    const spans = page.getByRole("list", { name: "Spans" });
    await expect.poll(() => spans.getByRole("button").count()).toBeGreaterThan(1);
    const inputs = page.getByRole("region", { name: "Span details" }).getByRole("region", { name: "Inputs" });
    await expect(inputs.textContent()).resolves.toContain("France");
    // A run of one revision names its application as a workflow: the application filter finds it all the same.
    await page.goto(`${server.url}/traces?app=capitals`);
    const listed = page.getByRole("table", { name: "Traces, newest first" });
    await listed.getByText("France", { exact: true }).waitFor();
    await page.goto(`${server.url}/traces?app=slow`);
    await page.getByText("No matching traces").waitFor();
  });

  it("shows the output while it is still streaming, and stops on demand", async () => {
    const { page } = browser;
    await signIn(page, server, `/playground?app=${apps.slow.id}&revision=${apps.slow.revision_id}`);
    await page.getByLabel("country").fill("Chile");
    await page.getByRole("button", { name: "Run" }).click();
    // stub-slow sends its first word, then waits 10 s: the word is on the page while the run goes on.
    await page.locator('.pg-output-text[data-state="running"]', { hasText: "Capital" }).waitFor({ timeout: 5000 });
    await expect(page.getByRole("button", { name: "Running…" }).isDisabled()).resolves.toBe(true);
    await page.getByRole("button", { name: "Stop" }).click();
    await page.getByRole("alert").filter({ hasText: "Stopped" }).waitFor();
    await expect(page.locator(".pg-output-text").textContent()).resolves.toMatch(/^Capital/);
  });

  it("takes inputs from a testset row, runs what an environment deployed, and shows a failure's message", async () => {
    const { page } = browser;
    await server.api("POST", "/applications/revisions/deploy", { application_variant_ref: { id: apps.capitals.variant_id }, environment_ref: { slug: "production" } });
    await signIn(page, server, `/playground?app=${apps.capitals.id}&env=production`);
    await page.getByLabel("Testset").selectOption({ label: "Countries" });
    const peru = page.getByLabel("Row").locator("option", { hasText: "Peru" });
    await expect(peru.textContent()).resolves.toMatch(/^2\. answer: Lima · country: Peru$/);
    await page.getByLabel("Row").selectOption((await peru.getAttribute("value"))!);
    await page.getByRole("button", { name: "Use row" }).click();
    await expect(page.getByLabel("country").inputValue()).resolves.toBe("Peru");
    await page.getByRole("button", { name: "Run" }).click();
    await page.locator('.pg-output-text[data-state="finished"]').waitFor();
    await expect(page.locator(".pg-output-text").textContent()).resolves.toBe("Capital of Peru?");

    // An environment that has nothing of this application deployed: the server's detail.
    browser.allowErrors(/status of 404/);
    await page.getByLabel("Revision or environment").selectOption({ label: "staging" });
    await page.waitForURL(/env=staging/);
    await expect(page.getByRole("alert").first().textContent()).resolves.toMatch(/staging/i);

    // The provider refuses the key: the failure envelope's message, and the failed call's trace.
    await page.getByLabel("Application").selectOption({ label: "Refused" });
    await page.waitForURL((url) => url.searchParams.get("app") === apps.refused.id && url.searchParams.has("revision"), { waitUntil: "commit" });
    await page.getByLabel("country").fill("Chad");
    await page.getByRole("button", { name: "Run" }).click();
    const alert = page.getByRole("alert").filter({ hasText: /Incorrect API key/ });
    await alert.waitFor();
    await page.getByRole("button", { name: "Show trace" }).click();
    await page.getByRole("region", { name: "Trace" }).getByText(/^424/).waitFor();
  });
});
