/**
 * Browser tests of the web console: a real server process (as `npm start` runs it) on fresh storage
 * (embedded PGlite, or an empty PostgreSQL database when DATABASE_URL is set), and Chromium driven by
 * playwright-core. Any error in the browser's console or an uncaught page error fails the test; a failing
 * test leaves a screenshot in test/browser/screenshots/. With TESSERA_SCREENSHOTS=1, `screenshot(page, name)`
 * writes docs/console/<name>.png for the README.
 */
import { mkdirSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, expect, type TestContext } from "vitest";
import { ROOT, startServerProcess, type ServerProcess } from "../support/process.ts";
import { processTarget, type ProcessTarget } from "../support/process-target.ts";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const FAILURE_SHOTS = join(ROOT, "test/browser/screenshots");
export const DOC_SHOTS = join(ROOT, "docs/console");

/** A listening server on storage of its own, and the key its first start printed. */
export interface ConsoleServer {
  url: string;
  key: string;
  /** What the first start printed (the welcome, with the sign-in link). */
  welcome: string;
  /** The link the welcome printed, pointed at this server's real port. */
  signInLink: string;
  /** Calls `/api${path}` with the key; answers the JSON, throws on an error status. */
  api<T = any>(method: string, path: string, body?: unknown): Promise<T>;
  close(): Promise<void>;
}

/** `env`: settings added to the server's environment (a provider's base URL and key …). */
export async function startConsoleServer(env: Record<string, string> = {}): Promise<ConsoleServer> {
  const target: ProcessTarget = await processTarget();
  let server: ServerProcess;
  try {
    server = await startServerProcess({ ...target.env, ...env });
  } catch (error) {
    await target.dispose();
    throw error;
  }
  const welcome = server.output.stdout;
  const link = /(\S+)\/#key=(\S+)/.exec(welcome);
  if (!link) throw new Error(`the first start printed no sign-in link:\n${welcome}`);
  const key = decodeURIComponent(link[2]);
  const url = server.url;
  return {
    url,
    key,
    welcome,
    signInLink: `${url}/#key=${link[2]}`,
    async api(method, path, body) {
      const res = await fetch(`${url}/api${path}`, {
        method,
        headers: { authorization: `ApiKey ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`${method} ${path} → ${res.status}: ${text}`);
      return text ? JSON.parse(text) : undefined;
    },
    async close() {
      await server.stop();
      await target.dispose();
    },
  };
}

/** The browser of a test file, and the page of the current test (a fresh context: no storage kept between tests). */
export interface BrowserSession {
  readonly browser: Browser;
  readonly context: BrowserContext;
  readonly page: Page;
  /** Errors the browser reported so far in this test (console errors and uncaught exceptions). */
  readonly errors: string[];
  /** Console errors matching `pattern` are expected in this test (a refused key's 401 is logged by the browser). */
  allowErrors(pattern: RegExp): void;
  /** A new page in a context of its own: another viewport, color scheme … (closed after the test). */
  newPage(options?: BrowserContextOptions): Promise<Page>;
}

const DESKTOP: BrowserContextOptions = { viewport: { width: 1280, height: 800 } };

/**
 * Registers the hooks of a browser test file: Chromium for the file, a fresh context and page per test,
 * errors collected and asserted after each test, a screenshot when a test fails.
 */
export function useBrowser(): BrowserSession {
  let browser: Browser | undefined;
  let contexts: BrowserContext[] = [];
  let current: Page | undefined;
  let errors: string[] = [];
  let allowed: RegExp[] = [];

  const open = async (options: BrowserContextOptions = {}) => {
    const context = await browser!.newContext({ ...DESKTOP, ...options });
    contexts.push(context);
    const page = await context.newPage();
    page.on("console", (message) => {
      if (message.type() !== "error") return;
      const text = `${message.text()} (${message.location().url})`;
      if (!allowed.some((pattern) => pattern.test(text))) errors.push(`console error: ${text}`);
    });
    page.on("pageerror", (error) => errors.push(`page error: ${error.stack ?? error.message}`));
    return page;
  };

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  });
  afterAll(async () => browser?.close());
  beforeEach(async () => {
    errors = [];
    allowed = [];
    current = await open();
  });
  afterEach(async (context: TestContext) => {
    const failed = context.task.result?.state === "fail" || errors.length > 0;
    if (failed && current) {
      mkdirSync(FAILURE_SHOTS, { recursive: true });
      const name = context.task.name.replace(/[^a-z0-9]+/gi, "-").slice(0, 80);
      await current.screenshot({ path: join(FAILURE_SHOTS, `${name}.png`), fullPage: true }).catch(() => undefined);
    }
    for (const c of contexts) await c.close().catch(() => undefined);
    contexts = [];
    expect(errors, "errors in the browser").toEqual([]);
  });

  return {
    get browser() {
      return browser!;
    },
    get context() {
      return contexts[0];
    },
    get page() {
      return current!;
    },
    get errors() {
      return errors;
    },
    allowErrors(pattern) {
      allowed.push(pattern);
    },
    newPage: open,
  };
}

/** Signs in through the sign-in form with `key` and waits for the registry. */
export async function signIn(page: Page, server: ConsoleServer, path = "/"): Promise<void> {
  await page.goto(server.url + path);
  await page.getByLabel("API key").fill(server.key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}

/** With TESSERA_SCREENSHOTS=1: docs/console/<name>.png, the page as it is now. */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.TESSERA_SCREENSHOTS !== "1") return;
  mkdirSync(DOC_SHOTS, { recursive: true });
  await page.screenshot({ path: join(DOC_SHOTS, `${name}.png`) });
}

/**
 * Counts the JavaScript a page loads from now on: `bytes()` answers the number of modules and their size
 * gzipped (each file on its own, as the server sends them), once the page has settled.
 */
export function watchScripts(page: Page): { bytes(): Promise<{ modules: number; gzipped: number; raw: number }> } {
  const bodies: Promise<Buffer>[] = [];
  page.on("response", (response) => {
    if (/\.m?js$/.test(new URL(response.url()).pathname)) bodies.push(response.body());
  });
  return {
    async bytes() {
      const all = await Promise.all(bodies);
      return { modules: all.length, gzipped: all.reduce((n, b) => n + gzipSync(b, { level: 9 }).length, 0), raw: all.reduce((n, b) => n + b.length, 0) };
    },
  };
}
