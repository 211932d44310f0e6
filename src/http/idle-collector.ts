import type { FastifyInstance } from "fastify";
import { requestsInFlight } from "./requests-in-flight.ts";

/** Quiet time after the last request before the server gives memory back. */
export const IDLE_COLLECT_MS = 10_000;
/** Resident size below which an idle server keeps its heap as it is (its ordinary working set). */
export const IDLE_COLLECT_RSS = 384 * 2 ** 20;

/** V8's collector, when the process was started with `--expose-gc` (read at each use: a test may set it later). */
const gc = () => (globalThis as { gc?: (options?: Record<string, string>) => void }).gc;

/**
 * Gives memory back once the server is idle. With `--no-memory-reducer` (server-flags.ts) V8 never
 * shrinks a heap that big work (a large upload or download) grew: when no request is in flight for
 * `IDLE_COLLECT_MS` and the process holds more than `IDLE_COLLECT_RSS`, one memory-reducing full
 * collection (`--expose-gc`) returns the free pages, once per quiet spell. Ordinary traffic stays under the
 * floor and never pays for it. Without `--expose-gc` (tests, embedding) it does nothing.
 */
export function collectWhenIdle(app: FastifyInstance, options: { idleMs?: number; rssFloor?: number } = {}): void {
  const { idleMs = IDLE_COLLECT_MS, rssFloor = IDLE_COLLECT_RSS } = options;
  if (!gc()) return;
  const requests = requestsInFlight(app.server);
  let seen = requests.answered;
  let lastActivity = performance.now();
  let collected = true;
  // The timer notes when the last answer came.
  const timer = setInterval(() => {
    if (requests.answered !== seen) {
      seen = requests.answered;
      lastActivity = performance.now();
      collected = false;
    }
    if (collected || requests.count > 0 || performance.now() - lastActivity < idleMs) return;
    collected = true;
    if (process.memoryUsage.rss() > rssFloor) giveMemoryBack();
  }, idleMs / 2);
  timer.unref();
  app.server.once("close", () => clearInterval(timer));
}

/**
 * One memory-reducing full collection, which returns freed pages to the system (with `--expose-gc`; nothing
 * without). A plain gc() frees objects but V8 keeps their pages (895 → 665 MB in a test); the last-resort
 * flavour collects to reduce the footprint, as the memory reducer would, and returns them (→ 74 MB).
 */
export function giveMemoryBack(): void {
  gc()?.({ type: "major", execution: "sync", flavor: "last-resort" });
}
