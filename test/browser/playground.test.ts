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
  const createApp = async (slug: string, name: string) =>
    (await server.api("POST", "/simple/applications/", {
      application: { slug, name, data: completion("gpt-4o-mini") },
    })).application;
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
    await page.getByRole("status").filter({ hasText: "Rows 1–2 of 2" }).waitFor();
    const peru = page.getByRole("row", { name: /Peru/ });
    await expect(peru.textContent()).resolves.toMatch(/^2answer: Lima · country: Peru/);
    await page.getByRole("button", { name: "Use row 2" }).click();
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

  it("edits the prompt and its settings, runs the draft without committing, then commits it", async () => {
    const { page } = browser;
    // A prompt without a template format: the form reads it as curly, and opening it is no edit.
    const { template_format: _, ...prompt } = completion("gpt-4o-mini").parameters.prompt;
    const app = (await server.api("POST", "/simple/applications/", {
      application: { slug: "drafts", name: "Drafts", data: { uri: "svc:builtin:completion:v0", parameters: { prompt } } },
    })).application;
    await signIn(page, server, `/playground?app=${app.id}&revision=${app.revision_id}`);
    await page.getByText("Edit the prompt or its settings to run a draft; commit it here as v2.").waitFor();
    await expect(page.getByRole("heading", { name: /^Prompt/ }).textContent()).resolves.toBe("Prompt drafts.default v1");
    // The revision's prompt: its messages with their roles, the variables they name, and the model's settings.
    await expect(page.getByLabel("Role of message 1").inputValue()).resolves.toBe("system");
    await expect(page.getByLabel("Message 2 (user)").inputValue()).resolves.toBe("Capital of {{country}}?");
    await expect(page.getByLabel("Model", { exact: true }).inputValue()).resolves.toBe("gpt-4o-mini");
    await page.getByLabel("Message 2 (user)").fill("Which city is the capital of {{country}}? Answer in {{language}}.");
    await page.getByLabel("Temperature").fill("0.3");
    await page.getByLabel("Max tokens").fill("64");
    await page.getByRole("heading", { name: /Prompt drafts\.default v1 · edited/ }).waitFor();
    // The variable the draft added is an input at once.
    await page.getByLabel("country").fill("Chile");
    await page.getByLabel("language").fill("Spanish");
    await page.getByRole("button", { name: "Run" }).click();
    await page.locator('.pg-output-text[data-state="finished"]').waitFor();
    const output = page.locator(".pg-output-text");
    await expect(output.textContent()).resolves.toBe("Which city is the capital of Chile? Answer in Spanish.");
    expect(llm.requests.at(-1)!.body).toMatchObject({ model: "gpt-4o-mini", temperature: 0.3, max_tokens: 64, stream: true });
    // Nothing was committed by running.
    const log = async () => (await server.api("POST", "/applications/revisions/log", {
      application: { application_variant_id: app.variant_id },
    })).application_revisions;
    const before = (await log()).length;
    await screenshot(page, "playground-draft");

    await page.getByLabel("Commit message").fill("Ask for the city, in a language");
    await page.getByRole("button", { name: "Commit as v2 of drafts.default" }).click();
    const committed = "Committed v2 of drafts.default: Ask for the city, in a language";
    await page.getByRole("status").filter({ hasText: committed }).waitFor();
    const [newest] = await log();
    expect(newest.version).toBe("2");
    expect(page.url()).toContain(`revision=${newest.id}`);
    const stored = (await server.api("GET", `/applications/revisions/${newest.id}`)).application_revision;
    expect(stored.message).toBe("Ask for the city, in a language");
    const committedPrompt = stored.data.parameters.prompt;
    expect(committedPrompt.template_format).toBe("curly");
    expect(committedPrompt.messages[1].content).toBe("Which city is the capital of {{country}}? Answer in {{language}}.");
    expect(committedPrompt.llm_config).toEqual({ model: "gpt-4o-mini", temperature: 0.3, max_tokens: 64 });
    await page.getByRole("heading", { name: /Prompt drafts\.default v2$/ }).waitFor();

    // A draft of v1 committed after v2 came: the server's 409, and the way to the newest.
    await page.goto(`${server.url}/playground?app=${app.id}&revision=${app.revision_id}`);
    await page.getByLabel("Temperature").fill("1");
    await page.getByLabel("Commit message").fill("Warmer");
    browser.allowErrors(/status of 409/);
    await page.getByRole("button", { name: "Commit as v2 of drafts.default" }).click();
    const stale = page.getByRole("alert").filter({ hasText: "This variant has a newer revision (v2)" });
    await stale.waitFor();
    expect(await log()).toHaveLength(before + 1);
    await stale.getByRole("button", { name: "Discard my edits and open v2" }).click();
    await page.waitForURL((url) => url.searchParams.get("revision") === newest.id);
    await expect(page.getByLabel("Temperature").inputValue()).resolves.toBe("0.3");
  });

  it("runs configurations side by side on the same inputs, each with its latency, tokens and cost", async () => {
    const { page } = browser;
    const app = await createApp("sides", "Sides");
    const v2 = (await server.api("POST", "/applications/revisions/commit", {
      application_revision_commit: {
        application_variant_id: app.variant_id, message: "Terse",
        data: completion("gpt-4o-mini", "Capital of {{country}}? One word."),
      },
    })).application_revision;
    await signIn(page, server, `/playground?app=${app.id}&revision=${v2.id}`);
    await page.getByRole("button", { name: "Compare with…" }).click();
    await page.getByLabel("Model of column 2").fill("gpt-4o");
    await page.getByRole("button", { name: "Compare with…" }).click();
    await page.getByLabel("Column 3 runs").selectOption({ label: "sides.default v1" });
    // A revision's own model is the placeholder of its column's model field, and can be replaced too.
    const placeholder = () => page.getByLabel("Model of column 3").getAttribute("placeholder");
    await expect.poll(placeholder, { timeout: 10_000 }).toBe("gpt-4o-mini");
    await page.getByLabel("Model of column 3").fill("gpt-4.1-mini");
    await page.getByLabel("country").fill("Japan");
    const before = llm.requests.length;
    await page.getByRole("button", { name: "Run" }).click();
    for (const n of [1, 2, 3]) await page.getByLabel(`Metrics of column ${n}`).waitFor();
    const outputs = await page.locator(".pg-output-text").allTextContents();
    expect(outputs).toEqual(["Capital of Japan? One word.", "Capital of Japan? One word.", "Capital of Japan?"]);
    const models = llm.requests.slice(before).map((r) => r.body.model).sort();
    expect(models).toEqual(["gpt-4.1-mini", "gpt-4o", "gpt-4o-mini"]);
    for (const n of [1, 2, 3]) {
      await expect(page.getByLabel(`Metrics of column ${n}`).textContent()).resolves.toMatch(/^\d+ ms\d+ tokens\$\d/);
    }
    // gpt-4o costs more than gpt-4o-mini for the same tokens.
    const cost = async (n: number) =>
      Number((await page.getByLabel(`Metrics of column ${n}`).textContent())!.split("$")[1]);
    expect(await cost(2)).toBeGreaterThan(await cost(1));
    await screenshot(page, "playground-compare");
  });

  it("finds any row of a large testset by number or search, and evaluates a selection of rows", async () => {
    const { page } = browser;
    const rows = Array.from({ length: 2500 }, (_, i) => ({
      data: { country: `Land ${i + 1}`, answer: `City ${i + 1}` },
    }));
    const testset = (await server.api("POST", "/simple/testsets/", {
      testset: { slug: "lands", name: "Lands", data: { testcases: rows } },
    })).testset;
    await signIn(page, server, `/playground?app=${apps.capitals.id}&revision=${apps.capitals.revision_id}`);
    await page.getByLabel("Testset").selectOption({ label: "Lands" });
    await page.getByRole("status").filter({ hasText: "Rows 1–10 of 2,500" }).waitFor();
    await page.getByLabel("Row number").fill("1800");
    await page.getByRole("button", { name: "Go", exact: true }).click();
    await page.getByRole("status").filter({ hasText: "Rows 1,800–1,809 of 2,500" }).waitFor();
    await page.getByRole("button", { name: "Use row 1800" }).click();
    await expect(page.getByLabel("country").inputValue()).resolves.toBe("Land 1800");
    await page.getByLabel("Select row 1800").check();
    await page.getByLabel("Select row 1801").check();

    // A search reads past the first thousand rows.
    await page.getByLabel("Search rows").fill("city 2345");
    await page.getByLabel("Search rows").press("Enter");
    await page.getByRole("status").filter({ hasText: "1 row with “city 2345” in rows 1–2,500 of 2,500" }).waitFor();
    await page.getByLabel("Select row 2345").check();
    await page.getByRole("button", { name: "Use row 2345" }).click();
    await expect(page.getByLabel("country").inputValue()).resolves.toBe("Land 2345");
    await page.getByRole("button", { name: "Run" }).click();
    await page.locator('.pg-output-text[data-state="finished"]').waitFor();
    await expect(page.locator(".pg-output-text").textContent()).resolves.toBe("Capital of Land 2345?");

    await page.getByRole("button", { name: "Evaluate 3 rows with v1" }).click();
    await page.getByRole("link", { name: "Open the evaluation run" }).waitFor();
    await page.getByRole("group", { name: "Selected rows" }).scrollIntoViewIfNeeded();
    await screenshot(page, "playground-testset");
    await page.getByRole("link", { name: "Open the evaluation run" }).click();
    await page.waitForURL(/\/evaluations\/[0-9a-f-]+$/);
    const runId = page.url().split("/").at(-1)!;
    const { evaluation } = await server.api("GET", `/simple/evaluations/${runId}`);
    expect(Object.keys(evaluation.data.application_steps)).toEqual([apps.capitals.revision_id]);
    const [testsetRevision] = Object.keys(evaluation.data.testset_steps);
    const picked = await server.api("POST", "/testcases/query", { testset_revision_ref: { id: testsetRevision } });
    const countries = picked.testcases.map((t: { data: { country: string } }) => t.data.country);
    expect(countries).toEqual(["Land 1800", "Land 1801", "Land 2345"]);
    // The rows keep their ids (same data, same testset), and the testset's own variant is untouched.
    const original = await server.api("POST", "/testcases/query", {
      testset_ref: { id: testset.id }, windowing: { offset: 1799, limit: 2 },
    });
    const ids = (page: { testcases: { id: string }[] }) => page.testcases.map((t) => t.id);
    expect(ids(picked).slice(0, 2)).toEqual(ids(original));
    expect(original.testcase_count).toBe(2500);
    await page.getByRole("heading", { name: /capitals v1 on 3 rows of Lands/ }).waitFor();
    // The server runs it: each row through the application, against the stub provider.
    const status = async () => (await server.api("GET", `/simple/evaluations/${runId}`)).evaluation.data.status;
    await expect.poll(status, { timeout: 30_000, interval: 500 }).toBe("success");
    const outputs = llm.requests.map((r) => r.body.messages.at(-1)?.content);
    expect(outputs).toEqual(expect.arrayContaining(["Capital of Land 1800?", "Capital of Land 1801?"]));
  });
});
