import { readFileSync } from "node:fs";
import { IDLE_COLLECT_MS } from "../src/http/idle-collector.ts";
import type { Child } from "./processes.ts";
import type { Line } from "./report.ts";

export const IDLE_MEMORY = "embedded server's memory, idle (PGlite)";
export const IDLE_MEMORY_TARGET = "< 300 MB after start, < 600 MB after the workload";

const START_LIMIT = 300 * 2 ** 20;
const AFTER_LIMIT = 600 * 2 ** 20;
const mb = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MB`;
const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The server's resident size once it has been idle long enough to give memory back (its idle collector runs
 * after `IDLE_COLLECT_MS` without a request and checks every half of it): what an operator sees on a quiet server.
 */
export async function idleRss(server: Child): Promise<number> {
  await sleep(IDLE_COLLECT_MS * 2 + 2_000);
  return rssOf(server.pid);
}

/** The idle size just after start, and after the lines named in `workload` ran on the same server. */
export async function idleMemoryLine(server: Child, atStart: number, workload: string[]): Promise<Line> {
  const after = await idleRss(server);
  const peak = server.peakRss();
  return {
    name: IDLE_MEMORY,
    figure: `${mb(atStart)} after start, ${mb(after)} after the workload`,
    baseline: `peak ${mb(peak)} since start`,
    ratio: null,
    target: IDLE_MEMORY_TARGET,
    met: atStart < START_LIMIT && after < AFTER_LIMIT,
    note: [
      `RSS (VmRSS) of the bench's embedded server, started as \`npm start\` starts it (server-flags.ts), each time after`,
      `${((IDLE_COLLECT_MS * 2 + 2_000) / 1000).toFixed(0)} s without a request: once just after it answered its first`,
      `health check, and once after these lines ran on it: ${workload.length ? workload.join("; ") : "none (an --only run)"}.`,
      "What stays is mostly the embedded database's WebAssembly memory, which cannot shrink once grown, and its",
      "buffer pool (TESSERA_EMBEDDED_SHARED_BUFFERS_MB).",
    ].join(" "),
  };
}
