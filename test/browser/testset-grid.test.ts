import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { screenshot, signIn, startConsoleServer, useBrowser, type ConsoleServer } from "./support.ts";

const ROWS = 1_000;

describe("console: testset grid", () => {
  const browser = useBrowser();
  let server: ConsoleServer;
  let testset: { id: string; revision_id: string };

  beforeAll(async () => {
    server = await startConsoleServer();
    const testcases = Array.from({ length: ROWS }, (_, i) => ({ data: { question: `q${i + 1}`, answer: `a${i + 1}` } }));
    testset = (await server.api("POST", "/simple/testsets/", { testset: { slug: "grid-rows", name: "Grid rows", data: { testcases } } })).testset;
  });
  afterAll(async () => server?.close());

  const rowsOf = async (revisionId: string, offset: number, limit: number) =>
    (await server.api("POST", "/testcases/query", { testset_revision_ref: { id: revisionId }, windowing: { offset, limit } }));

  it("jumps to a row, edits cells, rows and columns, and commits them as one delta", async () => {
    const { page } = browser;
    const urls: string[] = [];
    page.on("request", (request) => urls.push(request.url()));
    await signIn(page, server, `/testsets/${testset.id}`);
    await page.getByRole("link", { name: "Rows of the latest revision" }).click();
    await page.waitForURL(`**/testsets/${testset.id}/revisions/${testset.revision_id}/rows`);
    await page.getByTestId("row-count").filter({ hasText: "1,000" }).waitFor();
    await expect(page.getByLabel("Row 1 question").inputValue()).resolves.toBe("q1");
    // Only the rows in view are in the page.
    expect(await page.locator(".tg-spacer [role=row]").count()).toBeLessThan(60);
    await expect(page.getByLabel("Row 900 question").count()).resolves.toBe(0);

    await page.getByLabel("Go to row").fill("900");
    await page.getByRole("button", { name: "Go", exact: true }).click();
    await expect(page.getByLabel("Row 900 question").inputValue()).resolves.toBe("q900");
    expect(new URL(page.url()).searchParams.get("row")).toBe("900");
    await page.getByLabel("Row 900 answer").fill("edited");

    await page.getByLabel("Go to row").fill("1");
    await page.getByRole("button", { name: "Go", exact: true }).click();
    await page.getByRole("button", { name: "Delete row 2", exact: true }).click();
    await page.getByRole("button", { name: "Restore row 2", exact: true }).waitFor();

    await page.getByRole("button", { name: "Add row" }).click();
    await page.getByLabel("Row 1001 question").fill("new question");
    await page.getByLabel("New column").fill("notes");
    await page.getByRole("button", { name: "Add column" }).click();
    await page.getByLabel("Row 1001 notes").fill("added in the grid");
    await expect(page.getByText("4 changes").count()).resolves.toBe(1);
    await page.setViewportSize({ width: 1280, height: 1000 });
    await page.getByLabel("Go to row").fill("997");
    await page.getByRole("button", { name: "Go", exact: true }).click();
    await page.getByLabel("Row 997 question").waitFor();
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, "testset-grid");

    await page.getByLabel("Commit message").fill("Grid edits");
    await page.getByRole("button", { name: "Commit changes" }).click();
    await page.waitForURL((url) => url.pathname.includes("/revisions/") && !url.pathname.includes(testset.revision_id));
    await page.getByTestId("row-count").filter({ hasText: "1,000" }).waitFor();
    await page.getByText("Grid edits").waitFor();
    await expect(page.getByText("No changes").count()).resolves.toBe(1);
    const revisionId = new URL(page.url()).pathname.split("/")[4];

    const answer = await rowsOf(revisionId, 0, 1_000);
    expect(answer.testcase_count).toBe(1_000);
    const data = answer.testcases.map((t: { data: Record<string, unknown> }) => t.data);
    expect(data[1]).toMatchObject({ question: "q3", notes: null });
    expect(data[897]).toMatchObject({ question: "q899", answer: "a899" });
    expect(data[898]).toMatchObject({ question: "q900", answer: "edited", notes: null });
    expect(data[999]).toMatchObject({ question: "new question", notes: "added in the grid" });
    const revision = (await server.api("POST", "/testsets/revisions/retrieve", { testset_revision_ref: { id: revisionId }, include_testcases: false })).testset_revision;
    expect(revision.message).toBe("Grid edits");
    // The key went in headers only.
    expect(urls.filter((u) => u.includes(server.key))).toEqual([]);
  });

  it("uploads a CSV as the next revision with progress, and downloads a revision with the key in a header", async () => {
    const { page } = browser;
    const urls: string[] = [];
    page.on("request", (request) => urls.push(request.url()));
    await signIn(page, server, `/testsets/${testset.id}/revisions/${testset.revision_id}/rows?row=500`);
    await expect(page.getByLabel("Row 500 question").inputValue()).resolves.toBe("q500");

    // Uploads slowed down so that progress shows on the way.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 512 * 1024 });
    const shown: number[] = [];
    await page.exposeFunction("recordProgress", (value: number) => void shown.push(value));
    await page.evaluate(() => {
      new MutationObserver(() => {
        const bar = document.querySelector("progress");
        if (bar) (window as any).recordProgress(Number(bar.getAttribute("value")));
      }).observe(document.body, { subtree: true, childList: true, attributes: true });
    });
    const lines = Array.from({ length: 40_000 }, (_, i) => `uploaded question ${i + 1},answer ${"x".repeat(20)} ${i + 1}`);
    const csv = `question,answer\n${lines.join("\n")}\n`;
    await page.getByLabel("Upload as next revision").setInputFiles({ name: "more.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
    await page.getByRole("button", { name: "Upload", exact: true }).click();
    await page.getByRole("progressbar", { name: "Upload progress" }).waitFor();
    await page.waitForURL((url) => !url.pathname.includes(testset.revision_id), { timeout: 30_000 });
    await page.getByTestId("row-count").filter({ hasText: "40,000" }).waitFor();
    await expect(page.getByLabel("Row 1 question").inputValue()).resolves.toBe("uploaded question 1");
    expect(shown.some((v) => v > 0 && v < 100), `progress shown: ${shown.join(" ")}`).toBe(true);
    await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });

    await page.getByLabel("Download this revision as").selectOption("jsonl");
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download", exact: true }).click()]);
    expect(download.suggestedFilename()).toMatch(/^grid-rows-v\d+\.jsonl$/);
    const text = await readFile((await download.path())!, "utf8");
    const rows = text.trim().split("\n").map((line) => JSON.parse(line));
    expect(rows).toHaveLength(40_000);
    expect(rows[39_999]).toMatchObject({ question: "uploaded question 40000" });
    expect(urls.filter((u) => u.includes(server.key))).toEqual([]);
  });

  it("reads at phone width and in the dark theme", async () => {
    for (const [name, options] of [
      ["testset-grid-dark", { colorScheme: "dark" as const }],
      ["testset-grid-phone", { viewport: { width: 390, height: 844 }, isMobile: true }],
    ] as const) {
      const page = await browser.newPage(options);
      await signIn(page, server, `/testsets/${testset.id}/revisions/${testset.revision_id}/rows?row=42`);
      await expect(page.getByLabel("Row 42 question").inputValue()).resolves.toBe("q42");
      await screenshot(page, name);
    }
  });

  it("warns when the testset moved on, and applies the edits to the newest revision when asked", async () => {
    const { page } = browser;
    browser.allowErrors(/status of 409/); // the browser logs the refused request itself
    const created = (await server.api("POST", "/simple/testsets/", {
      testset: { slug: "moving", data: { testcases: [{ data: { q: "one" } }, { data: { q: "two" } }] } },
    })).testset;
    await signIn(page, server, `/testsets/${created.id}/revisions/${created.revision_id}/rows`);
    await page.getByLabel("Row 2 q").fill("two, edited in the grid");
    // Meanwhile a client adds a row on the same variant.
    const theirs = (await server.api("POST", "/testsets/revisions/commit", {
      testset_revision_commit: {
        testset_id: created.id, testset_revision_id: created.revision_id, message: "Theirs",
        delta: { rows: { add: [{ data: { q: "three, from a client" } }] } },
      },
    })).testset_revision;
    await page.getByRole("button", { name: "Commit changes" }).click();
    const warning = page.getByRole("alert").filter({ hasText: "newer revision" });
    await warning.waitFor();
    await expect(warning.textContent()).resolves.toContain(`(v${theirs.version})`);
    await warning.getByRole("button", { name: `Apply my changes to v${theirs.version} and commit` }).click();
    await page.waitForURL((url) => !url.pathname.includes(created.revision_id) && !url.pathname.includes(theirs.id));
    const revision = /\/revisions\/([0-9a-f-]{36})\/rows/.exec(page.url())![1];
    const rows = (await rowsOf(revision, 0, 10)).testcases.map((t: { data: { q: string } }) => t.data.q);
    expect(rows).toEqual(["one", "two, edited in the grid", "three, from a client"]);
  });
});
