import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { screenshot, signIn, startConsoleServer, useBrowser, type ConsoleServer } from "./support.ts";

const prompt = (system: string, temperature: number) => ({
  uri: "svc:builtin:completion:v0",
  parameters: {
    prompt: {
      messages: [{ role: "system", content: system }, { role: "user", content: "What is the capital of {{country}}?" }],
      llm_config: { model: "gpt-4o-mini", temperature },
    },
  },
});

describe("console: an artifact's timeline, diff and actions", () => {
  const browser = useBrowser();
  let server: ConsoleServer;
  let app: { id: string; variant_id: string; revision_id: string };
  let second: { id: string };

  beforeAll(async () => {
    server = await startConsoleServer();
    app = (await server.api("POST", "/simple/applications/", {
      application: { slug: "capitals", name: "Capitals", data: prompt("You are an expert in geography.", 0.7) },
    })).application;
    second = (await server.api("POST", "/applications/revisions/commit", {
      application_revision_commit: { application_variant_id: app.variant_id, message: "Answer in one word", data: prompt("Answer with the city name only.", 0) },
    })).application_revision;
  });
  afterAll(async () => server?.close());

  it("shows the timeline, and the diff of two revisions with the changed message line highlighted", async () => {
    const { page } = browser;
    await signIn(page, server, `/applications/${app.id}`);
    await page.getByRole("heading", { level: 1, name: "Capitals" }).waitFor();
    const timeline = page.locator("table.timeline");
    await timeline.getByRole("row").filter({ hasText: "Answer in one word" }).waitFor();
    // v2, v1 and the variant's initial v0, newest first.
    await expect(timeline.locator("tbody tr").count()).resolves.toBe(3);
    await expect(timeline.locator("tbody tr").first().textContent()).resolves.toContain("v2");
    await page.getByRole("link", { name: "Version 2" }).click();
    await page.waitForURL(new RegExp(`\\?variant=${app.variant_id}&revision=${second.id}$`));
    await page.getByRole("region", { name: "Version 2" }).getByText("Answer in one word").waitFor();
    await screenshot(page, "artifact");

    await page.getByLabel("Pick version 1 to compare").check();
    await page.getByLabel("Pick version 2 to compare").check();
    await page.getByRole("button", { name: "Compare" }).click();
    await page.waitForURL(`${server.url}/applications/${app.id}/diff?from=${app.revision_id}&to=${second.id}&variant=${app.variant_id}`);
    await page.getByRole("heading", { name: "Compare revisions" }).waitFor();
    const removed = page.locator(".split-diff td.diff-removed.diff-text");
    const added = page.locator(".split-diff td.diff-added.diff-text");
    await added.first().waitFor();
    await expect(removed.allTextContents()).resolves.toEqual(["Removed: You are an expert in geography."]);
    await expect(added.allTextContents()).resolves.toEqual(["Added: Answer with the city name only."]);
    // The unchanged user line is on both sides, not highlighted.
    await expect(page.locator(".split-diff td.diff-text:not(.diff-added):not(.diff-removed)").filter({ hasText: "capital of" }).count()).resolves.toBe(2);
    // Parameters by path: the temperature changed; the messages are in the text diff, not here.
    const params = page.getByRole("table", { name: "Parameter changes" });
    await expect(params.locator("tbody tr").count()).resolves.toBe(1);
    await expect(params.locator("tbody tr").textContent()).resolves.toContain("/prompt/llm_config/temperature");
    await screenshot(page, "diff");
    // The diff URL opens as it is, reloaded.
    await page.reload();
    await added.first().waitFor();
    await page.getByRole("link", { name: "Swap" }).click();
    await page.waitForURL(new RegExp(`from=${second.id}&to=${app.revision_id}`));
    await page.getByText("From: v2 · capitals.default").waitFor();
    await expect(page.locator(".split-diff td.diff-added.diff-text").allTextContents()).resolves.toEqual(["Added: You are an expert in geography."]);
  });

  it("reads at phone width in dark mode: the timeline and the diff stay within the screen", async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, colorScheme: "dark", isMobile: true });
    await page.goto(server.signInLink);
    await page.getByRole("heading", { name: "Registry" }).waitFor();
    await page.goto(`${server.url}/applications/${app.id}?revision=${second.id}`);
    await page.getByRole("region", { name: "Version 2" }).waitFor();
    await page.locator("table.timeline tbody tr").nth(2).waitFor();
    const width = () => page.evaluate(() => document.documentElement.scrollWidth);
    expect(await width()).toBeLessThanOrEqual(390);
    await page.goto(`${server.url}/applications/${app.id}/diff?from=${app.revision_id}&to=${second.id}`);
    await page.locator(".split-diff td.diff-added").first().waitFor();
    expect(await width()).toBeLessThanOrEqual(390);
    await screenshot(page, "diff-phone-dark");
  });

  it("forks a variant from a revision, reverts, and shows the server's detail on a refused fork", async () => {
    const { page } = browser;
    await signIn(page, server, `/applications/${app.id}?variant=${app.variant_id}&revision=${app.revision_id}`);
    const panel = page.getByRole("region", { name: "Version 1" });
    await panel.waitFor();
    await panel.getByRole("button", { name: "Fork a variant…" }).click();
    const dialog = page.getByRole("dialog", { name: "Fork a variant from v1" });
    await dialog.getByLabel("Variant slug").fill("terse");
    await dialog.getByRole("button", { name: "Fork" }).click();
    await page.locator(".timeline-of").getByText(/terse/).waitFor();
    const variants = await server.api("POST", "/applications/variants/query", { application_refs: [{ id: app.id }] });
    const forked = variants.application_variants.find((v: any) => v.slug.endsWith("terse"));
    expect(forked).toBeTruthy();
    expect(page.url()).toBe(`${server.url}/applications/${app.id}?variant=${forked.id}`);
    // The fork holds the lineage up to v1: v1 and v0.
    await page.locator("table.timeline tbody tr").nth(1).waitFor();
    await expect(page.locator("table.timeline tbody tr").count()).resolves.toBe(2);

    // The same slug again: the server refuses, the dialog stays open with its detail.
    browser.allowErrors(/status of 409|status of 400|status of 422/);
    await page.goto(`${server.url}/applications/${app.id}?variant=${app.variant_id}&revision=${app.revision_id}`);
    await panel.getByRole("button", { name: "Fork a variant…" }).click();
    await dialog.getByLabel("Variant slug").fill("terse");
    await dialog.getByRole("button", { name: "Fork" }).click();
    await expect(dialog.getByRole("alert").textContent()).resolves.toMatch(/already exists/);
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog.count()).resolves.toBe(0);

    // Revert to v1: a new v3 with v1's data, selected.
    await panel.getByRole("button", { name: "Revert to this…" }).click();
    await page.getByRole("dialog").getByLabel("Message (optional)").fill("Back to the expert");
    await page.getByRole("dialog").getByRole("button", { name: "Revert" }).click();
    await page.getByRole("region", { name: "Version 3" }).getByText("Back to the expert").waitFor();
    const log = await server.api("POST", "/applications/revisions/log", { application: { application_variant_id: app.variant_id } });
    expect(log.application_revisions[0]).toMatchObject({ version: "3", message: "Back to the expert" });
    expect(log.application_revisions[0].data?.parameters ?? null).toBeNull(); // the log carries no data
    const v3 = await server.api("GET", `/applications/revisions/${log.application_revisions[0].id}`);
    expect(v3.application_revision.data.parameters.prompt.messages[0].content).toBe("You are an expert in geography.");
  });

  it("archives and unarchives the application and a variant, each after a confirmation", async () => {
    const { page } = browser;
    await signIn(page, server, `/applications/${app.id}`);
    await page.getByRole("button", { name: "Archive application capitals", exact: true }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Archive" }).click();
    await page.getByRole("heading", { level: 1, name: "Capitals" }).getByText("archived").waitFor();
    expect((await server.api("GET", `/applications/${app.id}`)).application.deleted_at).not.toBeNull();
    await page.getByRole("button", { name: "Unarchive application capitals", exact: true }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Unarchive" }).click();
    // Exact: "Unarchive application capitals" also holds the words, and is on the page until the reload.
    await page.getByRole("button", { name: "Archive application capitals", exact: true }).waitFor();
    expect((await server.api("GET", `/applications/${app.id}`)).application.deleted_at).toBeNull();

    const row = page.getByRole("row").filter({ hasText: "capitals.default" });
    await row.getByRole("button", { name: /^Archive variant/ }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Archive" }).click();
    await row.getByText("archived", { exact: true }).waitFor();
    expect((await server.api("GET", `/applications/variants/${app.variant_id}`)).application_variant.deleted_at).not.toBeNull();
    await row.getByRole("button", { name: /^Unarchive variant/ }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Unarchive" }).click();
    await row.getByRole("button", { name: /^Archive variant/ }).waitFor();
    expect((await server.api("GET", `/applications/variants/${app.variant_id}`)).application_variant.deleted_at).toBeNull();
  });

  it("compares two testset revisions row by row: added, removed and changed rows", async () => {
    const ts = (await server.api("POST", "/simple/testsets/", {
      testset: { slug: "cities", name: "Cities", data: { testcases: [
        { data: { city: "Paris", country: "France" } }, { data: { city: "Kyoto", country: "Japan" } }, { data: { city: "Cusco", country: "Peru" } },
      ] } },
    })).testset;
    const ids: string[] = ts.data.testcase_ids;
    const next = (await server.api("POST", "/testsets/revisions/commit", {
      testset_revision_commit: {
        testset_id: ts.id, message: "Lima in, Kyoto out",
        delta: { rows: { add: [{ data: { city: "Lima", country: "Peru" } }], remove: [ids[1]], replace: [{ id: ids[2], data: { city: "Cuzco", country: "Peru" } }] } },
      },
    })).testset_revision;
    const { page } = browser;
    await signIn(page, server, `/testsets/${ts.id}`);
    await page.getByRole("row").filter({ hasText: "Lima in, Kyoto out" }).waitFor();
    await page.getByLabel(`Pick version ${next.version} to compare`).check();
    await page.getByLabel("Pick version 1 to compare").check();
    await page.getByRole("button", { name: "Compare" }).click();
    await page.waitForURL(new RegExp(`/testsets/${ts.id}/diff\\?from=${ts.revision_id}&to=${next.id}`));
    await page.getByText("3 → 3 rows").waitFor();
    await expect(page.getByRole("list", { name: "Added rows" }).textContent()).resolves.toContain("city: Lima · country: Peru");
    await expect(page.getByRole("list", { name: "Removed rows" }).textContent()).resolves.toContain("city: Kyoto · country: Japan");
    const changed = page.getByRole("table", { name: "Changed rows" }).locator("tbody tr");
    await expect(changed.count()).resolves.toBe(1);
    await expect(changed.textContent()).resolves.toMatch(/cityCuscoCuzco/);
  });

  it("shows a revision's prompt and where it is served, deploys it and opens it in the playground", async () => {
    const { page } = browser;
    await server.api("POST", "/applications/revisions/deploy", {
      application_revision_ref: { id: app.revision_id }, environment_ref: { slug: "production" },
    });
    await signIn(page, server, `/applications/${app.id}?variant=${app.variant_id}&revision=${second.id}`);
    const panel = page.getByRole("region", { name: "Version 2" });
    await panel.getByRole("list", { name: "Prompt messages" }).getByText("Answer with the city name only.").waitFor();
    await expect(panel.getByRole("definition").filter({ hasText: "gpt-4o-mini" }).count()).resolves.toBe(1);
    const production = panel.locator("li[data-env=production]");
    await expect(production.textContent()).resolves.toContain("serves v1");
    await production.getByRole("button", { name: "Deploy v2 to production" }).click();
    const dialog = page.getByRole("dialog", { name: "Deploy Capitals to production" });
    await expect(dialog.getByLabel("Revision").inputValue()).resolves.toBe(second.id);
    await dialog.getByRole("button", { name: "Deploy" }).click();
    await production.getByText("serves this revision").waitFor();
    const served = await server.api("POST", "/applications/revisions/retrieve", {
      application_ref: { id: app.id }, environment_ref: { slug: "production" },
    });
    expect(served.application_revision.id).toBe(second.id);
    await screenshot(page, "artifact-revision");
    await panel.getByRole("link", { name: "Open in the playground" }).click();
    await page.waitForURL(`${server.url}/playground?app=${app.id}&revision=${second.id}`);
  });
});
