import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Api } from "./api.ts";
import { ROOT } from "./processes.ts";
import type { Line } from "./report.ts";

/** The SDK's cached getConfig, when packages/client/bench/get-config.ts exists; null otherwise. */
export async function sdkLine(api: Api, calls: number): Promise<Line | null> {
  const bench = join(ROOT, "packages/client/bench/get-config.ts");
  const client = join(ROOT, "packages/client/src/client.ts");
  if (!existsSync(bench) || !existsSync(client)) return null;
  const { measureCachedGetConfig } = await import(bench);
  const { TesseraClient } = await import(client);
  if (typeof measureCachedGetConfig !== "function" || typeof TesseraClient !== "function") return null;
  const timing = await measureCachedGetConfig(new TesseraClient({ baseUrl: api.url, apiKey: api.key }), { application: "hot", environment: "production" }, calls);
  return {
    name: "SDK getConfig from its cache",
    figure: `${timing.microsPerCall.toFixed(2)} µs/call`,
    baseline: "—",
    ratio: null,
    target: "< 50 µs",
    met: timing.microsPerCall < 50,
    note: `${timing.calls.toLocaleString("en-US")} calls in ${timing.totalMs.toFixed(0)} ms (packages/client/bench/get-config.ts).`,
  };
}
