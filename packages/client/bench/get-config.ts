import type { TesseraClient } from "../src/client.ts";
import type { GetConfigOptions } from "../src/config.ts";

export interface CachedGetConfigTiming {
  calls: number;
  totalMs: number;
  microsPerCall: number;
}

/**
 * Microseconds per `getConfig` call answered from the in-memory cache: one call warms the cache
 * (it must reach the server), then `calls` calls are timed back to back. The TTL is raised for the
 * run so that no call revalidates.
 */
export async function measureCachedGetConfig(client: TesseraClient, options: GetConfigOptions, calls = 100_000): Promise<CachedGetConfigTiming> {
  const cached = { ...options, ttlMs: Number.MAX_SAFE_INTEGER };
  const warm = await client.getConfig(cached);
  if (warm.source !== "network" && warm.source !== "cache") throw new Error(`warm-up served a ${warm.source} config: is the server up?`);
  const started = performance.now();
  for (let i = 0; i < calls; i++) await client.getConfig(cached);
  const totalMs = performance.now() - started;
  return { calls, totalMs, microsPerCall: (totalMs * 1000) / calls };
}
