import { spawn, type ChildProcess } from "node:child_process";
import { openSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SERVER_ENV, SERVER_NODE_FLAGS } from "../src/server-flags.ts";

export const ROOT = fileURLToPath(new URL("../", import.meta.url));

/**
 * Where the servers run from: this repository, or another checkout given as `--server-root=DIR`
 * (e.g. to compare two trees, or to measure the committed tree while the working tree is mid-edit).
 */
export const SERVER_ROOT = process.argv.find((a) => a.startsWith("--server-root="))?.slice("--server-root=".length) || ROOT;

/** A port nobody listens on now (the child binds it a moment later). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Polls `url` until it answers 200; resolves with the milliseconds since `since`. */
export async function waitForOk(url: string, since: number, child: ChildProcess, timeoutMs = 120_000, everyMs = 5): Promise<number> {
  while (performance.now() - since < timeoutMs) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`process exited (${child.exitCode ?? child.signalCode}) before ${url} answered`);
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.status === 200) return performance.now() - since;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
}

export interface Child {
  url: string;
  pid: number;
  log: string;
  /** Peak resident memory (VmHWM) since start or the last `resetPeak`, in bytes. */
  peakRss(): number;
  resetPeak(): void;
  stop(): Promise<void>;
}

/** CPU time (user + system, all threads) a process has used so far, in µs; Linux (/proc, 100 ticks a second). */
export function cpuTimeOf(pid: number, statPath = `/proc/${pid}/stat`): number {
  const stat = readFileSync(statPath, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** CPU time (user + system) of each of a process's threads so far, in µs, by thread id; Linux (/proc). */
export function threadCpuOf(pid: number): Map<number, number> {
  const times = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      times.set(Number(tid), cpuTimeOf(Number(tid), `/proc/${pid}/task/${tid}/stat`));
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return times;
}

/** CPU time (user + system) all PostgreSQL server processes on this machine have used so far, in µs; Linux (/proc). */
export function postgresCpu(): number {
  let total = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "postgres") total += cpuTimeOf(Number(pid));
    } catch {
      // the process ended between the listing and the read
    }
  }
  return total;
}

/** The CPU time every core of the machine has been busy so far (not idle, not waiting for I/O), in µs; Linux. */
export function machineBusyCpu(): number {
  const [, ...ticks] = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!.trim().split(/\s+/).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = ticks as number[];
  return (user! + nice! + system! + irq! + softirq! + steal!) * 10_000;
}

/** VmHWM of a process; Linux only (null elsewhere). */
export function peakRssOf(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) * 1024 : NaN;
}

/** Starts a Node script (from the repository root) with output to `logDir`, and waits for `healthPath` to answer. */
export async function startChild(script: string, env: Record<string, string>, logDir: string, name: string, healthPath = "/api/health", nodeArgs: string[] = []): Promise<Child> {
  const port = await freePort();
  const log = join(logDir, `${name}.log`);
  const out = openSync(log, "a");
  const flags = script.endsWith("src/main.ts") ? SERVER_NODE_FLAGS : [];
  const child = spawn(process.execPath, [...flags, ...nodeArgs, script], {
    cwd: script.startsWith("bench/") ? ROOT : SERVER_ROOT,
    env: {
      ...(flags.length > 0 && SERVER_ENV), ...cleanEnv(), PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "warn", ...env,
    },
    stdio: ["ignore", out, out],
  });
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    await waitForOk(url + healthPath, performance.now(), child);
  } catch (error) {
    child.kill("SIGKILL");
    throw new Error(`${name}: ${(error as Error).message}\n${readFileSync(log, "utf8").slice(-2000)}`);
  }
  return {
    url,
    pid: child.pid!,
    log,
    peakRss: () => peakRssOf(child.pid!),
    resetPeak: () => writeFileSync(`/proc/${child.pid}/clear_refs`, "5"),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      child.kill("SIGTERM");
      await exited;
      clearTimeout(timer);
    },
  };
}

/** This process's environment without the settings each child is given explicitly. */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ["DATABASE_URL", "TESSERA_ADMIN_KEY", "TESSERA_DATA_DIR", "PORT", "HOST", "TESSERA_PUBLIC_URL", "LOG_LEVEL", "TESSERA_WORKERS"]) delete env[name];
  return env;
}
