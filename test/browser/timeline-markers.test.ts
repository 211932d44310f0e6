import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { screenshot, signIn, startConsoleServer, useBrowser, type ConsoleServer } from "./support.ts";

const prompt = (system: string) => ({
  uri: "svc:builtin:completion:v0",
  parameters: {
    prompt: {
      messages: [{ role: "system", content: system }, { role: "user", content: "{{country}}?" }],
      llm_config: { model: "gpt-4o-mini" },
    },
  },
});

describe("console: environments on an application's timeline", () => {
  const browser = useBrowser();
  let server: ConsoleServer;
  let app: { id: string; variant_id: string; revision_id: string };
  let second: { id: string };

  beforeAll(async () => {
    server = await startConsoleServer();
    app = (await server.api("POST", "/simple/applications/", {
      application: { slug: "capitals", name: "Capitals", data: prompt("Answer at length.") },
    })).application;
    second = (await server.api("POST", "/applications/revisions/commit", {
      application_revision_commit: {
        application_variant_id: app.variant_id, message: "Terse", data: prompt("Answer with the city only."),
      },
    })).application_revision;
    for (const environment of ["production", "staging"]) {
      await server.api("POST", "/applications/revisions/deploy", {
        application_revision_ref: { id: app.revision_id }, environment_ref: { slug: environment },
      });
    }
  });
  afterAll(async () => server?.close());

  const served = async (environment: string) => (await server.api("POST", "/applications/revisions/retrieve", {
    application_ref: { slug: "capitals" }, environment_ref: { slug: environment },
  })).application_revision;

  it("marks which revision each environment serves, deploys from a row and opens a row in the playground", async () => {
    const { page } = browser;
    await signIn(page, server, `/applications/${app.id}`);
    const timeline = page.getByRole("table", { name: "Revisions, newest first" });
    const row = (version: string) => timeline.getByRole("row")
      .filter({ has: page.getByRole("link", { name: `Version ${version}`, exact: true }) });
    await row("1").locator(".badge-env").first().waitFor();
    await expect(row("1").locator(".badge-env").allTextContents()).resolves.toEqual(["staging", "production"]);
    await expect(row("2").locator(".badge-env").count()).resolves.toBe(0);

    // v2 to staging, from its row: confirmed over the diff against what staging serves.
    await row("2").getByLabel("Deploy v2 to").selectOption({ label: "staging" });
    const dialog = page.getByRole("dialog", { name: "Deploy Capitals to staging" });
    await dialog.getByRole("button", { name: "Deploy" }).click();
    await row("2").locator(".badge-env", { hasText: "staging" }).waitFor();
    await expect(row("1").locator(".badge-env").allTextContents()).resolves.toEqual(["production"]);
    expect((await served("staging")).id).toBe(second.id);
    await screenshot(page, "timeline-environments");

    await row("2").getByRole("link", { name: "Open v2 in the playground" }).click();
    await page.waitForURL(/\/playground\?/);
    const url = new URL(page.url());
    expect(url.searchParams.get("app")).toBe(app.id);
    expect(url.searchParams.get("revision")).toBe(second.id);
  });
});
