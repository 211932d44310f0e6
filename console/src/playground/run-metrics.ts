import { api } from "../api.ts";

/** What one run cost: its latency, its tokens and, for a model with a known price, its cost in USD. */
export interface RunMetrics {
  latencyMs: number;
  tokens: number | null;
  cost: number | null;
}

/** The metrics of an invocation, read from its trace (`GET /traces/{id}`: the summary and the root span). */
export async function runMetrics(traceId: string, signal?: AbortSignal): Promise<RunMetrics | null> {
  const answer = await api("GET", `/traces/${encodeURIComponent(traceId)}`, undefined, { signal });
  const trace = answer.trace;
  if (!trace) return null;
  const root = Object.values(trace.spans ?? {}).flat()[0] as { attributes?: any } | undefined;
  const cost = root?.attributes?.ag?.metrics?.costs?.cumulative?.total;
  const tokens = trace.usage?.total_tokens;
  return {
    latencyMs: trace.latency_ms,
    tokens: typeof tokens === "number" ? tokens : null,
    cost: typeof cost === "number" ? cost : null,
  };
}

/** `$0.000012` for small amounts (two significant digits), `$0.0123` otherwise. */
export const formatCost = (usd: number) => `$${usd === 0 ? "0" : usd < 0.01 ? usd.toPrecision(2) : usd.toFixed(4)}`;
