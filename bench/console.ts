/**
 * Line 9: the web console in Chromium (playwright-core), from navigation to what a user waits for: the
 * first rows of a large testset revision in the grid, and the registry listing a project of 1,000
 * applications. Each navigation runs in a fresh browser context (empty cache, the key put in the tab's
 * session before the page loads, as signing in leaves it), so every one loads the console's modules anew.
 * The time is taken in the page, from the navigation's start to the frame that first shows the element;
 * Playwright's own view of it (goto to locator, polling and round trips included) is given beside it.
 * Without /usr/bin/chromium (or CHROMIUM_PATH) the lines say so and measure nothing.
 */
import { accessSync, constants, statSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";
import type { Api } from "./api.ts";
import { promptConfig } from "./api.ts";
import type { Child } from "./processes.ts";
import { median, type Line } from "./report.ts";
import { uploadTestset, type Testset } from "./testsets.ts";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const APPLICATIONS = 1_000;

/** An executable file at `path`. */
function runnable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export const GRID_LINE = (rows: number) => `9. console: first grid rows of a ${rows.toLocaleString("en-US")}-row testset (PostgreSQL)`;
export const REGISTRY_LINE = `9. console: registry with ${APPLICATIONS.toLocaleString("en-US")} applications (PostgreSQL)`;

interface Navigation {
  /** From navigation start to the frame that first shows the element, timed in the page; fresh context, cold cache. */
  cold: number;
  /** The same again in that context (the console's immutable modules cached). */
  warm: number;
  /** Of the cold navigation: from page.goto's call to Playwright's locator finding the element (polling included). */
  driver: number;
  /** Of the cold navigation: when the last module arrived, and the API calls' summed durations (ms since navigation start). */
  modulesDone: number;
  apiMs: number;
}

/**
 * Put in each page before its scripts: watches the document for `selector` and, in the animation frame
 * after it appears (the frame that paints it), keeps performance.now(): ms since the navigation started.
 */
function watchFor(selector: string) {
  const w = window as unknown as { __shownAt?: number };
  const seen = () => {
    if (w.__shownAt !== undefined || !document.querySelector(selector)) return false;
    requestAnimationFrame(() => (w.__shownAt ??= performance.now()));
    return true;
  };
  const observer = new MutationObserver(() => seen() && observer.disconnect());
  observer.observe(document, { subtree: true, childList: true, attributes: true });
}

/** Navigations to `path` until `ready` shows: each in a fresh context, then once more with its cache. */
async function navigations(browser: Browser, api: Api, path: string, ready: string, runs: number): Promise<Navigation[]> {
  const out: Navigation[] = [];
  for (let i = 0; i < runs; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      await context.addInitScript((key) => sessionStorage.setItem("tessera.apiKey", key), api.key);
      await context.addInitScript(watchFor, ready);
      const page = await context.newPage();
      const time = async () => {
        const started = performance.now();
        await page.goto(api.url + path, { waitUntil: "commit" });
        await page.locator(ready).first().waitFor({ timeout: 30_000 });
        const driver = performance.now() - started;
        await page.waitForFunction(() => (window as unknown as { __shownAt?: number }).__shownAt !== undefined);
        return { shown: await page.evaluate(() => (window as unknown as { __shownAt: number }).__shownAt), driver };
      };
      const cold = await time();
      const timing = await page.evaluate(() => {
        const entries = performance.getEntriesByType("resource") as PerformanceResourceTiming[];
        const modules = entries.filter((e) => /\.js$/.test(new URL(e.name).pathname));
        const calls = entries.filter((e) => new URL(e.name).pathname.startsWith("/api/"));
        return { modulesDone: Math.max(0, ...modules.map((e) => e.responseEnd)), apiMs: calls.reduce((n, e) => n + e.duration, 0) };
      });
      out.push({ cold: cold.shown, driver: cold.driver, warm: (await time()).shown, ...timing });
    } finally {
      await context.close();
    }
  }
  return out;
}

/** Creates applications until the project holds `count` (16 requests at a time). */
async function createApplications(api: Api, count: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let n = next++; n < count; n = next++) {
      await api.post("/simple/applications/", { application: { slug: `console-bench-${n}`, name: `Console bench ${n}`, data: promptConfig(n) } });
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

const fmt = (ms: number) => `${Math.round(ms)} ms`;

export async function consoleLines(api: Api, server: Child, rows: number, fixture: Testset | undefined, runs: number): Promise<Line[]> {
  const gridTarget = "< 1 s";
  const registryTarget = "< 500 ms";
  if (!runnable(CHROMIUM)) {
    const missing = (name: string, target: string): Line => ({
      name, figure: "not measured: chromium missing", baseline: "—", ratio: null, target, met: null, note: `no browser at ${CHROMIUM} (set CHROMIUM_PATH)`,
    });
    return [missing(GRID_LINE(rows), gridTarget), missing(REGISTRY_LINE, registryTarget)];
  }
  const testset = fixture ?? (await uploadTestset(api, server, rows, `console-bench-${rows}`)).testset;
  await createApplications(api, APPLICATIONS);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  try {
    // The grid shows a row's cells once its page of rows has answered.
    const grid = await navigations(browser, api, `/testsets/${testset.id}/revisions/${testset.revisionId}/rows`, '[aria-label^="Row 1 "]', runs);
    const deep = await navigations(browser, api, `/testsets/${testset.id}/revisions/${testset.revisionId}/rows?row=${rows - 10}`,
      `[aria-label^="Row ${rows - 10} "]`, runs);
    const registry = await navigations(browser, api, "/registry?kind=applications", "tbody tr a", runs);
    const line = (name: string, navs: Navigation[], limit: number, target: string, what: string): Line => {
      const cold = navs.map((n) => n.cold);
      const warm = navs.map((n) => n.warm);
      return {
        name,
        figure: `${fmt(median(cold))} (cached ${fmt(median(warm))})`,
        baseline: "—",
        ratio: null,
        target,
        met: median(cold) < limit,
        note: `${what}. From the navigation's start to the frame that first shows the element, timed in the page (performance.now() in the ` +
          `animation frame after it appears), the median of ${navs.length} navigations each in a fresh Chromium context (cold cache: ` +
          `${cold.map(fmt).join(", ")}), then once more in that context with the console's immutable modules cached (${warm.map(fmt).join(", ")}). ` +
          `Timed from outside instead, from page.goto's call until Playwright's locator finds the element (its polling and round trips to the ` +
          `browser included), the cold navigations took ${navs.map((n) => fmt(n.driver)).join(", ")}. ` +
          `Cold, the last module had arrived at ${fmt(median(navs.map((n) => n.modulesDone)))} (median) and the API calls took ` +
          `${fmt(median(navs.map((n) => n.apiMs)))} in all. Server and browser on the same machine.`,
      };
    };
    return [
      line(GRID_LINE(rows), grid, 1_000, gridTarget,
        `/testsets/{id}/revisions/{revision}/rows until row 1's cells show (testset and revision reads, and POST /testcases/query with windowing.offset, ` +
        `100 rows a page, at once). A deep link to row ${(rows - 10).toLocaleString("en-US")} (?row=…) shows its cells in ${fmt(median(deep.map((n) => n.cold)))} ` +
        `(cached ${fmt(median(deep.map((n) => n.warm)))})`),
      line(REGISTRY_LINE, registry, 500, registryTarget, `/registry?kind=applications until the first row of the listing shows, the project holding ${APPLICATIONS.toLocaleString("en-US")} applications`),
    ];
  } finally {
    await browser.close();
  }
}
