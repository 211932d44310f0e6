import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { screenshot, signIn, startConsoleServer, useBrowser, watchScripts, type ConsoleServer } from "./support.ts";

const prompt = { uri: "svc:builtin:completion:v0", parameters: { prompt: { messages: [{ role: "user", content: "{{q}}" }], llm_config: { model: "gpt-4o-mini" } } } };

describe("console: sign-in and registry", () => {
  const browser = useBrowser();
  let server: ConsoleServer;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    server = await startConsoleServer();
    for (const [slug, name] of [["geo-capitals", "Geo capitals"], ["summariser", "Summariser"], ["old-bot", "Old bot"]]) {
      const created = await server.api("POST", "/simple/applications/", { application: { slug, name, data: prompt } });
      ids[slug] = created.application.id;
    }
    await server.api("POST", `/simple/applications/${ids["old-bot"]}/archive`);
  });
  afterAll(async () => server?.close());

  it("refuses a wrong key with the server's detail, then signs in with the right one", async () => {
    const { page } = browser;
    browser.allowErrors(/status of 401/); // the browser logs the refused request itself
    await page.goto(server.url + "/");
    await expect(page.title()).resolves.toBe("Tessera");
    await screenshot(page, "sign-in");
    await page.getByLabel("API key").fill("tsk_nosuchkey.0123456789");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("alert").textContent()).resolves.toMatch(/key/i);
    await page.getByLabel("API key").fill(server.key);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Registry" }).waitFor();
    await page.getByRole("link", { name: "Geo capitals" }).waitFor();
    await expect(page.locator("tbody tr").count()).resolves.toBe(2);
    await expect(page.getByRole("link", { name: "Geo capitals" }).count()).resolves.toBe(1);
    await expect(page.getByRole("link", { name: "Summariser" }).count()).resolves.toBe(1);
    await expect(page.getByText("Old bot").count()).resolves.toBe(0);
    // The key is kept for this tab only.
    expect(await page.evaluate(() => sessionStorage.getItem("tessera.apiKey"))).toBe(server.key);
    expect(await page.evaluate(() => localStorage.getItem("tessera.apiKey"))).toBeNull();
  });

  it("signs in through the link the first start printed, and takes the key out of the address bar", async () => {
    expect(server.welcome).toContain("/#key=");
    const { page } = browser;
    const scripts = watchScripts(page);
    await page.goto(server.signInLink);
    await page.getByRole("heading", { name: "Registry" }).waitFor();
    expect(page.url()).toBe(server.url + "/");
    await page.getByRole("link", { name: "Geo capitals" }).waitFor();
    // The budget of the first view: under 200 KB of JavaScript, gzipped.
    const js = await scripts.bytes();
    console.log(`first view: ${js.modules} modules, ${js.raw} B of JavaScript, ${js.gzipped} B gzipped`);
    // app.js and the chunks it imports, each named by index.html (modulepreload): no import waterfall. A page loaded
    // with import() (the traces pages) is not among them.
    const preloaded = await page.locator('link[rel="modulepreload"]').count();
    expect(preloaded).toBeGreaterThan(0);
    expect(js.modules).toBe(1 + preloaded);
    expect(js.raw).toBeGreaterThan(20 * 1024);
    expect(js.gzipped).toBeLessThan(200 * 1024);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("API key").waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem("tessera.apiKey"))).toBeNull();
    // A link with a key the server refuses: back to the sign-in page, which says why.
    browser.allowErrors(/status of 401/);
    await page.goto(`${server.url}/registry#key=tsk_revoked.0123456789`);
    await expect(page.getByRole("alert").textContent()).resolves.toMatch(/^Signed out: .*key/i);
    expect(page.url()).toBe(`${server.url}/registry`);
  });

  it("signs in from the link pasted into a tab already on the console, leaving no key in the URL", async () => {
    const { page } = browser;
    await page.goto(server.url + "/");
    await page.getByLabel("API key").waitFor();
    await page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));
    // Only the fragment differs: the browser does not load the page again.
    await page.goto(server.signInLink);
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    await page.getByRole("link", { name: "Geo capitals" }).waitFor();
    expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
    expect(page.url()).toBe(server.url + "/");
    expect(await page.evaluate(() => sessionStorage.getItem("tessera.apiKey"))).toBe(server.key);
  });

  it("searches by name or slug and shows archived ones on demand, all in the URL", async () => {
    const { page } = browser;
    await signIn(page, server);
    await page.getByLabel("Search applications").fill("CAPITAL");
    await page.waitForURL(/\?q=CAPITAL$/);
    await page.waitForFunction(() => document.querySelectorAll("tbody tr").length === 1);
    await expect(page.locator("tbody tr").textContent()).resolves.toContain("Geo capitals");
    await page.getByLabel("Search applications").fill("summ");
    await page.waitForURL(/\?q=summ$/);
    await page.getByRole("link", { name: "Summariser" }).waitFor();
    await expect(page.locator("tbody tr").count()).resolves.toBe(1);
    await page.getByLabel("Search applications").fill("zzz-nothing");
    await page.getByText("No applications match “zzz-nothing”").waitFor();
    await page.getByLabel("Search applications").fill("");
    await page.waitForURL(server.url + "/");
    await page.getByLabel("Show archived").check();
    await page.waitForURL(/\?archived=1$/);
    const archived = page.getByRole("row").filter({ hasText: "Old bot" });
    await archived.waitFor();
    await expect(archived.getByText("archived", { exact: true }).count()).resolves.toBe(1);
    await expect(page.locator("tbody tr").count()).resolves.toBe(3);
    await screenshot(page, "registry");
    // A deep link opens as it was left.
    await page.reload();
    await archived.waitFor();
    await expect(page.getByLabel("Show archived").isChecked()).resolves.toBe(true);
  });

  it("opens an artifact, and back and forward move between the registry and it", async () => {
    const { page } = browser;
    await signIn(page, server, "/registry?kind=applications");
    await page.getByRole("link", { name: "Geo capitals" }).click();
    await page.waitForURL(`${server.url}/applications/${ids["geo-capitals"]}`);
    await page.getByRole("heading", { name: "Geo capitals" }).waitFor();
    const variants = await server.api("POST", "/applications/variants/query", { application_refs: [{ id: ids["geo-capitals"] }] });
    const variant = variants.application_variants[0];
    await page.getByRole("row").filter({ hasText: variant.slug }).waitFor();
    await expect(page.locator("dl.facts").textContent()).resolves.toContain("geo-capitals");
    await page.goBack();
    await page.waitForURL(`${server.url}/registry?kind=applications`);
    await page.getByRole("heading", { name: "Registry" }).waitFor();
    await page.goForward();
    await page.getByRole("heading", { name: "Geo capitals" }).waitFor();
    // Opened directly, and an id that is not there: the server's detail.
    // The header's Environments tab: the project's environments (every project starts with three).
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Environments" }).click();
    await page.waitForURL(`${server.url}/environments`);
    await page.getByRole("heading", { name: "Environments", exact: true }).waitFor();
    await page.getByRole("list").getByRole("link", { name: /production/i }).click();
    await page.waitForURL(/\/environments\/[0-9a-f-]{36}$/);
    await page.getByRole("heading", { name: /production/i }).waitFor();
    await expect(page.locator(".crumbs").textContent()).resolves.toMatch(/^Environments/);
    browser.allowErrors(/status of 404/); // the browser logs the refused request itself
    await page.goto(`${server.url}/applications/0190a7c2-1111-7000-8000-000000000000`);
    await expect(page.getByRole("alert").textContent()).resolves.toMatch(/not found/);
    await page.goto(`${server.url}/no/such/page`);
    await page.getByText("No such page").waitFor();
  });

  it("switches kinds, shows empty states, and pages through long lists", async () => {
    for (let i = 0; i < 53; i++) await server.api("POST", "/workflows/", { workflow: { slug: `flow-${String(i).padStart(2, "0")}`, name: `Flow ${i}` } });
    // Applications are workflows too: the list holds both.
    const { count } = await server.api("POST", "/workflows/query", { windowing: { limit: 100 } });
    expect(count).toBeGreaterThan(53);
    const { page } = browser;
    await signIn(page, server);
    await page.getByRole("link", { name: "Testsets" }).click();
    await page.waitForURL(/kind=testsets/);
    await page.getByText("No testsets yet").waitFor();
    await page.getByRole("link", { name: "Workflows" }).click();
    await page.getByText("50 shown").waitFor();
    await page.getByRole("link", { name: "Flow 52" }).waitFor(); // newest first
    await page.getByRole("button", { name: "Load more" }).click();
    await page.getByText(`${count} shown`).waitFor();
    await page.getByRole("link", { name: "Flow 0", exact: true }).waitFor();
    await expect(page.getByRole("button", { name: "Load more" }).count()).resolves.toBe(0);
    // Keyboard: the tabs and rows are links reached with Tab.
    await page.getByRole("link", { name: "Evaluators" }).focus();
    await page.keyboard.press("Enter");
    await page.waitForURL(/kind=evaluators/);
  });

  it("reads well at phone width in dark mode, and the theme toggle overrides the system", async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, colorScheme: "dark", isMobile: true });
    await page.goto(server.signInLink);
    await page.getByRole("link", { name: "Geo capitals" }).waitFor();
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await expect(background()).resolves.toBe("rgb(21, 23, 27)");
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390); // nothing wider than the screen
    await screenshot(page, "registry-phone-dark");
    await page.getByRole("button", { name: /Change theme/ }).click(); // auto → light
    await expect(background()).resolves.toBe("rgb(255, 255, 255)");
    expect(await page.evaluate(() => localStorage.getItem("tessera.theme"))).toBe("light");
    await page.reload();
    await page.getByRole("link", { name: "Geo capitals" }).waitFor();
    await expect(background()).resolves.toBe("rgb(255, 255, 255)");
  });
});
