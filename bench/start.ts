import { spawn } from "node:child_process";
import { mkdtempSync, openSync, rmSync } from "node:fs";
import { join } from "node:path";
import { cleanEnv, freePort, SERVER_ROOT, waitForOk } from "./processes.ts";
import { median, type Line } from "./report.ts";

/** `npm start` in its own process group (npm → sh → node), timed to the first 200 of /api/health. */
async function timeStart(dataDir: string, logDir: string): Promise<number> {
  const port = await freePort();
  const out = openSync(join(logDir, "npm-start.log"), "a");
  const started = performance.now();
  const child = spawn("npm", ["start", "--silent"], {
    cwd: SERVER_ROOT,
    env: { ...cleanEnv(), PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "warn", TESSERA_DATA_DIR: dataDir },
    stdio: ["ignore", out, out],
    detached: true,
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    return await waitForOk(`http://127.0.0.1:${port}/api/health`, started, child, 120_000, 2);
  } finally {
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      // already gone
    }
    const timer = setTimeout(() => process.kill(-child.pid!, "SIGKILL"), 15_000);
    await exited;
    clearTimeout(timer);
  }
}

/** An empty Node process from spawn to exit: what any start costs before our code runs. */
async function timeEmptyNode(): Promise<number> {
  const started = performance.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
    child.once("error", reject);
    child.once("exit", () => resolve());
  });
  return performance.now() - started;
}


/** Line 6: cold start (fresh TESSERA_DATA_DIR: PGlite initdb, migrations, first-run key) and warm restart. */
export async function startLines(logDir: string, repeats: number): Promise<Line[]> {
  const cold: number[] = [];
  const warm: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const dataDir = mkdtempSync(join(logDir, "start-"));
    try {
      cold.push(await timeStart(dataDir, logDir));
      warm.push(await timeStart(dataDir, logDir));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  const empty: number[] = [];
  for (let i = 0; i < 5; i++) empty.push(await timeEmptyNode());
  const base = median(empty);
  const line = (name: string, xs: number[]): Line => ({
    name,
    figure: `${median(xs).toFixed(0)} ms`,
    baseline: `${base.toFixed(0)} ms (node -e "")`,
    ratio: median(xs) / base,
    target: "none given (reported)",
    met: null,
    note: `median of ${xs.length} (${xs.map((x) => x.toFixed(0)).join(", ")} ms), npm start to the first 200 from /api/health; includes npm's own start.`,
  });
  return [line("6. cold start, npm start, embedded db (fresh dir)", cold), line("6. warm restart, npm start, embedded db", warm)];
}
