import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { screenshot, signIn, startConsoleServer, useBrowser, type ConsoleServer } from "./support.ts";

describe("console: a testset's columns in their order", () => {
  const browser = useBrowser();
  let server: ConsoleServer;
  let testset: { id: string; revision_id: string };

  beforeAll(async () => {
    server = await startConsoleServer();
    const testcases = Array.from({ length: 5 }, (_, i) => ({ data: { zeta: `z${i}`, alpha: `a${i}`, mid: `m${i}` } }));
    const body = { testset: { slug: "ordered", data: { testcases } } };
    testset = (await server.api("POST", "/simple/testsets/", body)).testset;
  });
  afterAll(async () => server?.close());

  it("shows the uploaded order, keeps an added column last and a renamed one in place", async () => {
    const { page } = browser;
    await signIn(page, server, `/testsets/${testset.id}/revisions/${testset.revision_id}/rows`);
    const headers = () => page.locator(".tg-head [role=columnheader]").allTextContents();
    await page.getByLabel("Row 1 zeta").waitFor();
    expect((await headers()).filter((h) => ["zeta", "alpha", "mid"].includes(h))).toEqual(["zeta", "alpha", "mid"]);

    await page.getByLabel("New column").fill("aaa");
    await page.getByRole("button", { name: "Add column" }).click();
    await page.getByRole("button", { name: "Rename column alpha" }).click();
    await page.getByLabel("Rename column alpha to").fill("beta");
    await page.getByRole("button", { name: "Rename", exact: true }).click();
    await expect(page.getByLabel("Row 1 beta").inputValue()).resolves.toBe("a0");
    await page.getByLabel("Row 1 aaa").fill("new cell");
    await screenshot(page, "testset-columns");
    await page.getByLabel("Commit message").fill("Columns");
    await page.getByRole("button", { name: "Commit changes" }).click();
    await page.waitForURL((url) => !url.pathname.includes(testset.revision_id));
    await page.getByLabel("Row 1 beta").waitFor();
    const data = ["zeta", "beta", "mid", "aaa"];
    expect((await headers()).filter((h) => data.includes(h))).toEqual(data);
    await expect(page.getByLabel("Row 1 aaa").inputValue()).resolves.toBe("new cell");

    const revisionId = /revisions\/([^/]+)\/rows/.exec(page.url())![1];
    const { testset_revision: revision } = await server.api("POST", "/testsets/revisions/retrieve", {
      testset_revision_ref: { id: revisionId }, include_testcases: false,
    });
    expect(revision.columns).toEqual(data);
  });
});
