import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { screenshot, signIn, startConsoleServer, useBrowser, type ConsoleServer } from "./support.ts";

/** The newest revision's data of an artifact of `kind` (through the API, as a client would read it). */
async function latestData(server: ConsoleServer, kind: string, id: string): Promise<Record<string, any>> {
  const one = kind.slice(0, -1);
  const answer = await server.api("POST", `/${kind}/revisions/query`, {
    [`${one}_refs`]: [{ id }], windowing: { limit: 1, order: "descending" },
  });
  const revisions = answer[`${one}_revisions`];
  expect(revisions.length).toBe(1);
  return (await server.api("GET", `/${kind}/revisions/${revisions[0].id}`))[`${one}_revision`].data;
}

/** The rows of the revision whose grid the page shows, in order. */
async function gridRows(server: ConsoleServer, url: string): Promise<Record<string, unknown>[]> {
  const revision = /\/revisions\/([0-9a-f-]{36})\/rows/.exec(url)![1];
  const answer = await server.api("POST", "/testcases/query", { testset_revision_ref: { id: revision } });
  return answer.testcases.map((t: { data: Record<string, unknown> }) => t.data);
}

const idInUrl = (url: string, kind: string) => new RegExp(`/${kind}/([0-9a-f-]{36})`).exec(url)![1];

describe("console: a new user creates testsets, applications and evaluators", () => {
  const browser = useBrowser();
  let server: ConsoleServer;
  const dir = mkdtempSync(join(tmpdir(), "tessera-create-"));

  beforeAll(async () => {
    server = await startConsoleServer();
  });
  afterAll(async () => server?.close());

  it("uploads a first CSV as a new testset from the registry's empty state", async () => {
    const file = join(dir, "capitals.csv");
    writeFileSync(file, "country,expected,notes\nFrance,Paris,first\nJapan,Tokyo,second\nPeru,Lima,third\n");
    const { page } = browser;
    await signIn(page, server, "/registry?kind=testsets");
    await page.getByText("No testsets yet").waitFor();
    await expect(page.getByRole("status").textContent()).resolves.not.toMatch(/API|command line/);
    await page.getByRole("status").getByRole("link", { name: "New testset" }).click();
    await page.waitForURL(/\/testsets\/new$/);
    await page.getByLabel("File (CSV, JSON or JSON Lines)").setInputFiles(file);
    await expect(page.getByLabel("Name", { exact: true }).inputValue()).resolves.toBe("capitals");
    await expect(page.getByLabel("Slug").inputValue()).resolves.toBe("capitals");
    await page.getByLabel("Name", { exact: true }).fill("World capitals");
    await expect(page.getByLabel("Slug").inputValue()).resolves.toBe("world-capitals");
    await screenshot(page, "create-testset");
    await page.getByRole("button", { name: "Create testset" }).click();
    await page.waitForURL(/\/testsets\/[0-9a-f-]{36}\/revisions\/[0-9a-f-]{36}\/rows/);
    await page.getByTestId("row-count").filter({ hasText: "3" }).waitFor();
    await expect(page.getByLabel("Row 2 expected").inputValue()).resolves.toBe("Tokyo");
    const id = idInUrl(page.url(), "testsets");
    const rows = await gridRows(server, page.url());
    expect(rows.map((data) => data.country)).toEqual(["France", "Japan", "Peru"]);
    const { testset } = await server.api("GET", `/simple/testsets/${id}`);
    expect([testset.slug, testset.name]).toEqual(["world-capitals", "World capitals"]);
  });

  it("follows the server storing the rows once the bytes are sent, rows stored out of the file's", async () => {
    const file = join(dir, "numbers.csv");
    // Enough rows that storing them outlasts the browser's progress events (at most one each 50 ms): with 30,000 the
    // server could store them all between two events, and the bar went from the bytes to the commit.
    const lines = Array.from({ length: 100_000 }, (_, i) => `${i},${i * i},square of ${i}`);
    writeFileSync(file, `n,square,text\n${lines.join("\n")}\n`);
    const { page } = browser;
    await signIn(page, server, "/testsets/new");
    await page.getByLabel("File (CSV, JSON or JSON Lines)").setInputFiles(file);
    await page.getByRole("button", { name: "Create testset" }).click();
    const shown: string[] = [];
    await page.exposeFunction("recordStatus", (text: string) => void shown.push(text));
    await page.evaluate(() => {
      new MutationObserver(() => {
        const status = document.querySelector("[role=status]");
        if (status) (window as any).recordStatus(status.textContent ?? "");
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await page.getByText(/^Storing rows: [\d,]+ of 100,000$/).waitFor();
    // After the bytes, the bar counts the rows the server has stored.
    const value = Number(await page.getByRole("progressbar", { name: "Upload progress" }).getAttribute("value"));
    expect(value).toBeGreaterThanOrEqual(0);
    expect(value).toBeLessThanOrEqual(100);
    await page.waitForURL(/\/rows/, { timeout: 60_000 });
    await page.getByTestId("row-count").filter({ hasText: "100,000" }).waitFor();
    const stored = shown.map((text) => /Storing rows: ([\d,]+) of 100,000$/.exec(text)?.[1]).filter(Boolean);
    expect(stored.length, shown.join(" | ")).toBeGreaterThan(0);
    expect(shown.some((text) => text.includes("committing the revision")), shown.join(" | ")).toBe(true);
  });

  it("refuses a broken file with the server's detail and creates nothing", async () => {
    const file = join(dir, "broken.json");
    writeFileSync(file, "[{\"q\": 1}, ");
    const before = (await server.api("POST", "/testsets/query", {})).count;
    const { page } = browser;
    browser.allowErrors(/status of 4\d\d/);
    await signIn(page, server, "/testsets/new");
    await page.getByLabel("File (CSV, JSON or JSON Lines)").setInputFiles(file);
    await page.getByRole("button", { name: "Create testset" }).click();
    await expect(page.getByRole("alert").textContent()).resolves.toMatch(/JSON/);
    expect(page.url()).toMatch(/\/testsets\/new$/);
    expect((await server.api("POST", "/testsets/query", {})).count).toBe(before);
  });

  it("starts a testset from an empty grid with named columns", async () => {
    const { page } = browser;
    await signIn(page, server, "/registry?kind=testsets");
    await page.getByRole("link", { name: "New testset" }).first().click();
    await page.getByRole("link", { name: "Start from an empty grid" }).click();
    await page.waitForURL(/from=grid/);
    await page.getByRole("button", { name: "Create testset" }).click();
    await expect(page.getByRole("alert").textContent()).resolves.toMatch(/name/);
    await page.getByLabel("Name", { exact: true }).fill("Greetings");
    await page.getByRole("button", { name: "Create testset" }).click();
    await expect(page.getByRole("alert").textContent()).resolves.toBe("Add at least one column.");
    for (const column of ["language", "greeting"]) {
      await page.getByLabel("Column name").fill(column);
      await page.getByRole("button", { name: "Add column" }).click();
    }
    await page.getByLabel("Column name").fill("greeting");
    await page.getByRole("button", { name: "Add column" }).click();
    await page.getByText("There is already a column named greeting.").waitFor();
    await page.getByLabel("Row 1, language").fill("French");
    await page.getByLabel("Row 1, greeting").fill("Bonjour");
    await page.getByRole("button", { name: "Add row" }).click();
    await page.getByLabel("Row 2, language").fill("Spanish");
    await page.getByLabel("Row 2, greeting").fill("Hola");
    await page.getByRole("button", { name: "Add row" }).click(); // a blank row is left out
    await screenshot(page, "create-testset-grid");
    await page.getByRole("button", { name: "Create testset" }).click();
    await page.waitForURL(/\/testsets\/[0-9a-f-]{36}\/revisions\/[0-9a-f-]{36}\/rows/);
    await page.getByTestId("row-count").filter({ hasText: "2" }).waitFor();
    const rows = await gridRows(server, page.url());
    expect(rows.map((data) => [data.language, data.greeting])).toEqual([["French", "Bonjour"], ["Spanish", "Hola"]]);
  });

  it("creates a completion application from the catalog's template, then a hook and a code application", async () => {
    const { page } = browser;
    await signIn(page, server, "/registry?kind=applications");
    await page.getByText("No applications yet").waitFor();
    await page.getByRole("link", { name: "New application" }).first().click();
    await page.waitForURL(/\/applications\/new$/);
    await page.getByRole("radio", { name: /Completion/, checked: true }).waitFor(); // recommended first
    await page.getByLabel("Name", { exact: true }).fill("Capital finder");
    await page.getByLabel("Message 2 (user)").fill("Name the capital of {{country}} in one word.");
    await page.getByLabel("Model", { exact: true }).fill("gpt-4o");
    await screenshot(page, "create-application");
    await page.getByRole("button", { name: "Create application" }).click();
    await page.waitForURL(/\/applications\/[0-9a-f-]{36}$/);
    await page.getByRole("heading", { name: "Capital finder" }).waitFor();
    const completion = await latestData(server, "applications", idInUrl(page.url(), "applications"));
    expect(completion.uri).toBe("agenta:builtin:completion:v0");
    expect(completion.parameters.prompt.messages[1].content).toBe("Name the capital of {{country}} in one word.");
    expect(completion.parameters.prompt.llm_config.model).toBe("gpt-4o");

    await page.goto(`${server.url}/applications/new`);
    await page.getByRole("radio", { name: /Hook/ }).check();
    await page.getByLabel("Name", { exact: true }).fill("My service");
    await page.getByLabel("Service URL").fill("not a url");
    await page.getByRole("button", { name: "Create application" }).click();
    await page.getByText("The address of your service, http:// or https://").waitFor();
    await page.getByLabel("Service URL").fill("https://hooks.example.com/capitals");
    await page.getByRole("button", { name: "Create application" }).click();
    await page.getByRole("heading", { name: "My service" }).waitFor();
    const hook = await latestData(server, "applications", idInUrl(page.url(), "applications"));
    expect([hook.uri, hook.url]).toEqual(["agenta:custom:hook:v0", "https://hooks.example.com/capitals"]);

    await page.goto(`${server.url}/applications/new`);
    await page.getByRole("radio", { name: /Code/ }).check();
    await page.getByLabel("Name", { exact: true }).fill("Shouter");
    const script = "function run(inputs) { return String(inputs.text).toUpperCase(); }";
    await page.getByLabel("Script (JavaScript)").fill(script);
    await page.getByRole("button", { name: "Create application" }).click();
    await page.getByRole("heading", { name: "Shouter" }).waitFor();
    const code = await latestData(server, "applications", idInUrl(page.url(), "applications"));
    expect(code.uri).toBe("agenta:custom:code:v0");
    expect(code.script).toContain("toUpperCase");
    // A slug already taken: the server's detail, on the same page.
    browser.allowErrors(/status of 409/);
    await page.goto(`${server.url}/applications/new`);
    await page.getByLabel("Name", { exact: true }).fill("Shouter");
    await page.getByRole("button", { name: "Create application" }).click();
    await expect(page.getByRole("alert").textContent()).resolves.toMatch(/shouter/i);
  });

  it("creates evaluators: exact match on a chosen column, a regex preset, an LLM judge with prompt and model", async () => {
    const { page } = browser;
    await signIn(page, server, "/registry?kind=evaluators");
    await page.getByText("No evaluators yet").waitFor();
    await page.getByRole("link", { name: "New evaluator" }).first().click();
    await page.waitForURL(/\/evaluators\/new$/);
    await page.getByRole("radio", { name: /Exact Match/ }).check();
    await page.getByLabel("Name", { exact: true }).fill("Right capital");
    // The column is chosen among the testsets' columns.
    const column = page.getByLabel("Expected answer column");
    const choices = await column.locator("option").allTextContents();
    expect(choices).toEqual(expect.arrayContaining(["expected", "country"]));
    await column.selectOption("expected");
    await page.getByRole("group", { name: "Settings" }).scrollIntoViewIfNeeded();
    await screenshot(page, "create-evaluator");
    await page.getByRole("button", { name: "Create evaluator" }).click();
    await page.getByRole("heading", { name: "Right capital" }).waitFor();
    const exact = await latestData(server, "evaluators", idInUrl(page.url(), "evaluators"));
    expect(exact.uri).toBe("agenta:builtin:auto_exact_match:v0");
    expect(exact.parameters.correct_answer_key).toBe("expected");

    await page.goto(`${server.url}/evaluators/new`);
    await page.getByRole("radio", { name: /Regex Test/ }).check();
    await page.getByLabel("Preset").selectOption({ label: "Email address" });
    await expect(page.getByLabel("Regex pattern").inputValue()).resolves.toContain("@");
    await page.getByLabel("Name", { exact: true }).fill("Has an email");
    await page.getByRole("button", { name: "Create evaluator" }).click();
    await page.getByRole("heading", { name: "Has an email" }).waitFor();
    const regex = await latestData(server, "evaluators", idInUrl(page.url(), "evaluators"));
    expect(regex.parameters.regex_pattern).toContain("@");
    expect(regex.parameters.regex_should_match).toBe(true);

    await page.goto(`${server.url}/evaluators/new`);
    await page.getByRole("radio", { name: /LLM-as-a-judge/ }).check();
    await page.getByLabel("Preset").selectOption({ label: "Hallucination" });
    await page.getByLabel("Name", { exact: true }).fill("Judge");
    await page.getByLabel("Message 1 (system)").fill("Grade strictly. Answer {\"score\": 0..1}.");
    await page.getByLabel("Model", { exact: true }).fill("gpt-4o");
    await page.getByRole("button", { name: "Create evaluator" }).click();
    await page.getByRole("heading", { name: "Judge" }).waitFor();
    const judge = await latestData(server, "evaluators", idInUrl(page.url(), "evaluators"));
    expect(judge.uri).toBe("agenta:builtin:auto_ai_critique:v0");
    expect(judge.parameters.model).toBe("gpt-4o");
    expect(judge.parameters.prompt_template[0]).toEqual({
      role: "system", content: "Grade strictly. Answer {\"score\": 0..1}.",
    });
    expect(judge.parameters.json_schema?.name).toBe("score"); // the preset's JSON field kept as JSON

    // "New evaluation" now offers them.
    await page.goto(`${server.url}/evaluations`);
    await page.getByRole("button", { name: "New evaluation" }).click();
    await page.getByRole("checkbox", { name: /right-capital/ }).waitFor();
  });
});
