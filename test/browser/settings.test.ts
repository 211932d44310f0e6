import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStubLlm, type StubLlm } from "../support/stub-llm.ts";
import { screenshot, signIn, startConsoleServer, useBrowser, type ConsoleServer } from "./support.ts";

describe("console: settings", () => {
  const browser = useBrowser();
  let server: ConsoleServer;
  let llm: StubLlm;

  beforeAll(async () => {
    llm = await startStubLlm();
    // No provider configured on the server: the key the user adds in the console is the only one.
    server = await startConsoleServer({
      TESSERA_SECRET_KEY: "settings-test-secret-key-0123456789",
      TESSERA_ALLOW_PRIVATE_HOOKS: "true", // the stub listens on 127.0.0.1, over http
    });
  });
  afterAll(async () => {
    await server?.close();
    await llm?.close();
  });

  it("adds provider keys that are never shown back, and the playground runs with one", async () => {
    const { page } = browser;
    await signIn(page, server);
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Settings" }).click();
    await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();
    await page.getByText("No provider keys yet").waitFor();

    await page.getByLabel("Provider", { exact: true }).selectOption({ label: "OpenAI" });
    await page.getByLabel("API key", { exact: true }).fill("sk-openai-secret-1");
    await page.getByRole("button", { name: "Save key" }).click();
    await page.getByText("OpenAI key saved.").waitFor();
    await page.getByLabel("Provider", { exact: true }).selectOption({ label: "OpenAI-compatible (any base URL)" });
    await page.getByLabel("Name", { exact: true }).first().fill("stub");
    await page.getByLabel("Base URL").fill(llm.baseUrl);
    await page.getByLabel("API key", { exact: true }).fill("sk-compatible-secret-2");
    await page.getByRole("button", { name: "Save key" }).click();
    await page.getByText("OpenAI-compatible (any base URL) key saved.").waitFor();
    const keys = page.getByRole("table", { name: "Provider keys" });
    await keys.getByRole("row").filter({ hasText: llm.baseUrl }).waitFor();
    await expect(keys.getByRole("row").count()).resolves.toBe(3);
    // Neither the page nor the API ever shows a key again.
    const html = await page.content();
    expect(html).not.toContain("sk-openai-secret-1");
    expect(html).not.toContain("sk-compatible-secret-2");
    await expect(page.getByLabel("API key", { exact: true }).inputValue()).resolves.toBe("");
    const listed = JSON.stringify(await server.api("GET", "/secrets/"));
    expect(listed).not.toContain("secret-1");
    expect(listed).not.toContain("secret-2");
    await screenshot(page, "settings");

    // The stored key is the one the runtime uses: a prompt on `stub/<model>` runs through the playground.
    const prompt = {
      messages: [{ role: "user", content: "Hello {{name}}" }], llm_config: { model: "stub/echo-model" },
    };
    const app = (await server.api("POST", "/simple/applications/", {
      application: {
        slug: "greeter", name: "Greeter", data: { uri: "svc:builtin:completion:v0", parameters: { prompt } },
      },
    })).application;
    await page.goto(`${server.url}/playground?app=${app.id}&revision=${app.revision_id}`);
    await page.getByLabel("name").fill("Ada");
    await page.getByRole("button", { name: "Run" }).click();
    await page.locator('.pg-output-text[data-state="finished"]').waitFor();
    const result = await page.locator("main").textContent();
    expect(result, result ?? "").toContain("Hello Ada");
    expect(llm.requests.at(-1)!.headers.authorization).toBe("Bearer sk-compatible-secret-2");

    // Deleting asks first.
    await page.goto(`${server.url}/settings`);
    await page.getByRole("button", { name: "Delete openai" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete" }).click();
    await page.getByRole("dialog").waitFor({ state: "detached" });
    await expect.poll(() => keys.getByRole("row").count()).toBe(2);
    expect((await server.api("GET", "/secrets/")).map((s: { slug: string }) => s.slug)).toEqual(["stub"]);
  });

  it("creates an API key shown once, and revokes it", async () => {
    const { page } = browser;
    await signIn(page, server, "/settings");
    const table = page.getByRole("table", { name: "API keys" });
    await table.getByText("this tab").waitFor();
    await page.getByRole("form", { name: "Create an API key" }).getByLabel("Name", { exact: true }).fill("ci");
    await page.getByRole("button", { name: "Create key" }).click();
    const shown = page.getByLabel("New API key");
    await shown.waitFor();
    const key = await shown.inputValue();
    expect(key).toMatch(/^tsk_/);
    await table.getByRole("row").filter({ hasText: "ci" }).getByText("active").waitFor();
    const call = () => fetch(`${server.url}/api/projects/current`, { headers: { authorization: `ApiKey ${key}` } });
    expect((await call()).status).toBe(200);
    await page.getByRole("button", { name: "Done" }).click();
    await expect(shown.count()).resolves.toBe(0);
    await page.reload();
    await table.getByRole("row").filter({ hasText: "ci" }).waitFor();
    expect(await page.content()).not.toContain(key);

    await page.getByRole("button", { name: "Revoke ci" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Revoke" }).click();
    await table.getByRole("row").filter({ hasText: "ci" }).getByText("revoked").waitFor();
    expect((await call()).status).toBe(401);
  });

  it("shows the project, the server's version and its limits", async () => {
    const { page } = browser;
    await signIn(page, server, "/settings");
    const version = (await server.api("GET", "/server/info")).version;
    await expect(page.getByTestId("server-version").textContent()).resolves.toBe(version);
    const limits = page.getByRole("table", { name: /Limits/ });
    const row = (variable: string) => limits.getByRole("row").filter({ hasText: variable }).textContent();
    await expect(row("TESSERA_BODY_LIMIT")).resolves.toContain("10 MiB");
    await expect(row("TESSERA_UPLOAD_LIMIT")).resolves.toContain("1 GiB");
    await limits.scrollIntoViewIfNeeded();
    await screenshot(page, "settings-server");
  });
});
