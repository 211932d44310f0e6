import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { screenshot, signIn, startConsoleServer, useBrowser, type ConsoleServer } from "./support.ts";

const prompt = (system: string) => ({
  uri: "svc:builtin:completion:v0",
  parameters: { prompt: { messages: [{ role: "system", content: system }, { role: "user", content: "{{country}}?" }], llm_config: { model: "gpt-4o-mini" } } },
});

describe("console: environments board", () => {
  const browser = useBrowser();
  let server: ConsoleServer;
  let app: { id: string; variant_id: string; revision_id: string };
  let second: { id: string };

  beforeAll(async () => {
    server = await startConsoleServer();
    app = (await server.api("POST", "/simple/applications/", { application: { slug: "capitals", name: "Capitals", data: prompt("Answer at length.") } })).application;
    second = (await server.api("POST", "/applications/revisions/commit", {
      application_revision_commit: { application_variant_id: app.variant_id, message: "Terse", data: prompt("Answer with the city only.") },
    })).application_revision;
    await server.api("POST", "/simple/applications/", { application: { slug: "summary", name: "Summariser", data: prompt("Summarise.") } });
    // Production serves v1 so far.
    await server.api("POST", "/applications/revisions/deploy", { application_revision_ref: { id: app.revision_id }, environment_ref: { slug: "production" } });
  });
  afterAll(async () => server?.close());

  const served = async (environment: string) => (await server.api("POST", "/applications/revisions/retrieve", {
    application_ref: { slug: "capitals" }, environment_ref: { slug: environment },
  })).application_revision;

  it("deploys to staging, promotes to production over the diff, and shows the history entry", async () => {
    const { page } = browser;
    await signIn(page, server, "/environments");
    const board = page.getByRole("table", { name: "Applications by environment" });
    await board.waitFor();
    await expect(board.locator("thead th").allTextContents()).resolves.toEqual(["Application", "development", "staging", "production"]);
    await page.getByLabel("capitals in production: version 1").waitFor();
    await page.getByLabel("capitals in staging: nothing deployed").waitFor();

    await page.getByRole("button", { name: "Deploy capitals in staging" }).click();
    const deploy = page.getByRole("dialog", { name: "Deploy Capitals to staging" });
    await deploy.getByText("Nothing of this application is live in staging yet.").waitFor(); // the revisions are in
    await expect(deploy.getByLabel("Revision").inputValue()).resolves.toBe(second.id); // the newest by default
    await deploy.getByText("Nothing of this application is live in staging yet.").waitFor();
    await deploy.getByRole("button", { name: "Deploy" }).click();
    await page.getByLabel("capitals in staging: version 2").waitFor();
    expect((await served("staging")).id).toBe(second.id);

    await page.getByRole("button", { name: "Promote capitals from staging to production" }).click();
    const promote = page.getByRole("dialog", { name: "Promote Capitals from staging to production?" });
    await promote.locator(".split-diff td.diff-added.diff-text").waitFor();
    await expect(promote.locator(".split-diff td.diff-removed.diff-text").allTextContents()).resolves.toEqual(["Removed: Answer at length."]);
    await expect(promote.locator(".split-diff td.diff-added.diff-text").allTextContents()).resolves.toEqual(["Added: Answer with the city only."]);
    await expect(promote.locator(".split-diff thead").textContent()).resolves.toBe("Live in production v1To deploy v2");
    await screenshot(page, "environments-promote");
    await promote.getByRole("button", { name: "Promote" }).click();
    await page.getByLabel("capitals in production: version 2").waitFor();
    expect((await served("production")).id).toBe(second.id);
    // Both serve the same revision: nothing left to promote.
    await expect(page.getByRole("button", { name: "Promote capitals from staging to production" }).count()).resolves.toBe(0);

    await page.getByRole("link", { name: "History of production" }).click();
    await page.waitForURL(`${server.url}/environments?env=production`);
    const history = page.getByRole("region", { name: "History of production" });
    const newest = history.locator("tbody tr").first();
    await expect(newest.textContent()).resolves.toContain("Promote capitals v2 from staging to production");
    await newest.getByText("admin@localhost").waitFor(); // who: the signed-in user
    await expect(history.locator("tbody tr").nth(1).textContent()).resolves.toContain("Deploy capitals v1 to production");
    await screenshot(page, "environments");
    // The history entry's diff: the environment's pointer moved from v1 to v2.
    await newest.getByRole("link", { name: "changes" }).click();
    await page.waitForURL(/\/environments\/[0-9a-f-]{36}\/diff\?from=/);
    await page.getByRole("table", { name: "Other data changes" }).getByText(/application_revision\/version/).waitFor();
  });

  it("shows the server's detail when a guarded environment refuses a deploy", async () => {
    const envs = await server.api("POST", "/environments/query", {});
    const development = envs.environments.find((e: any) => e.slug === "development");
    await server.api("POST", `/simple/environments/${development.id}/guard`);
    const { page } = browser;
    browser.allowErrors(/status of 409/);
    await signIn(page, server, "/environments?env=development");
    await page.getByRole("region", { name: "History of development" }).waitFor();
    await page.getByRole("button", { name: "Deploy summary in development" }).click();
    const dialog = page.getByRole("dialog", { name: "Deploy Summariser to development" });
    await dialog.getByText("Nothing of this application is live in development yet.").waitFor();
    await dialog.getByRole("button", { name: "Deploy" }).click();
    await expect(dialog.getByRole("alert").textContent()).resolves.toMatch(/development is guarded/);
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await page.getByLabel("summary in development: nothing deployed").waitFor();
  });

  it("shows every environment at phone width, without scrolling sideways", async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true });
    await page.goto(server.signInLink);
    await page.waitForURL(`${server.url}/`);
    await page.goto(`${server.url}/environments`);
    for (const env of ["development", "staging", "production"]) {
      const deploy = page.getByRole("button", { name: `Deploy capitals in ${env}` });
      await deploy.waitFor();
      const box = (await deploy.boundingBox())!;
      expect(box.x, env).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width, env).toBeLessThanOrEqual(390);
    }
    const production = page.locator("td[data-env=production]").first();
    await expect(production.textContent()).resolves.toMatch(/^v\d+ · capitals/); // what production serves
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(page, "environments-phone");
  });

  it("creates an environment from the board, guarded from its first moment", async () => {
    const { page } = browser;
    await signIn(page, server, "/environments");
    await page.getByRole("button", { name: "New environment" }).click();
    const dialog = page.getByRole("dialog", { name: "New environment" });
    await dialog.getByLabel("Name").fill("QA lab");
    await expect(dialog.getByLabel("Slug").inputValue()).resolves.toBe("qa-lab");
    await dialog.getByLabel(/Guarded/).check();
    await screenshot(page, "environments-new");
    await dialog.getByRole("button", { name: "Create" }).click();
    const board = page.getByRole("table", { name: "Applications by environment" });
    await board.getByRole("link", { name: "History of qa-lab" }).waitFor();
    await expect(board.locator("thead th").last().textContent()).resolves.toBe("qa-labguarded");
    const { environments } = await server.api("POST", "/environments/query", {});
    const made = environments.find((e: any) => e.slug === "qa-lab");
    expect(made).toMatchObject({ name: "QA lab", flags: { is_guarded: true } });
    // A slug taken already is the server's 409, shown in the dialog, which stays open.
    browser.allowErrors(/status of 409/);
    await page.getByRole("button", { name: "New environment" }).click();
    await dialog.getByLabel("Name").fill("Production");
    await dialog.getByRole("button", { name: "Create" }).click();
    await expect(dialog.getByRole("alert").textContent()).resolves.toMatch(/production/);
  });
});
