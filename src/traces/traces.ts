import type { Scope } from "../accounts/scope.ts";
import type { Queryable } from "../db/database.ts";
import type { Span } from "../runtime/trace.ts";
import { traceTrees } from "../tracing/span-answer.ts";
import { spanIdHex, traceIdToUuid } from "../tracing/span.ts";
import { spansOfTraces, type StoredSpan } from "../tracing/spans.ts";

/** How an invocation ended, as its trace records it: an HTTP-like code, and the error's type and message. */
export interface TraceStatus {
  code: number;
  type?: string;
  message?: string;
}

/** A hosted invocation as the trace writer takes it: its ids, what it was given and answered, its spans. */
export interface InvocationRecord {
  traceId: string;
  spanId: string;
  references: Record<string, unknown> | null;
  inputs: unknown;
  outputs: unknown;
  status: TraceStatus;
  latencyMs: number;
  usage: unknown;
  spans: Span[];
  sessionId?: string | null;
}

type Json = Record<string, any>;

/**
 * A trace as `/traces/*` answers it: the reference's `{trace_id, spans}` (root spans by name, children nested),
 * and, read from its root span, the summary our clients show: `span_id`, `references`, `inputs`, `outputs`,
 * `status` (`{code, type?, message?}`), `latency_ms`, `usage` (`{prompt_tokens, completion_tokens,
 * total_tokens}`) and `created_at`.
 */
export function traceAnswer(spans: StoredSpan[]): Json | null {
  const [tree] = Object.entries(traceTrees(spans));
  if (!tree) return null;
  const root = spans.find((span) => span.parent_id === null)!;
  const ag: Json = root.attributes.ag ?? {};
  const tokens = ag.metrics?.tokens?.cumulative ?? ag.metrics?.tokens?.incremental;
  const error = root.status_code === "STATUS_CODE_ERROR";
  const status = ag.meta?.status ?? {
    code: error ? 500 : 200, ...(root.status_message ? { message: root.status_message } : {}),
  };
  const outputs = ag.data?.outputs;
  return {
    trace_id: tree[0], spans: tree[1].spans, span_id: spanIdHex(root.span_id), references: ag.references ?? null,
    inputs: ag.data?.inputs ?? null,
    outputs: outputs && typeof outputs === "object" && "__default__" in outputs ? outputs.__default__ : outputs ?? null,
    status, latency_ms: ag.metrics?.duration?.cumulative ?? 0,
    usage: tokens
      ? { prompt_tokens: tokens.prompt ?? 0, completion_tokens: tokens.completion ?? 0, total_tokens: tokens.total ?? 0 }
      : null,
    created_at: root.created_at,
  };
}

/** The traces among `traceIds` (hex or uuid) that this project holds (unknown ids left out), in the order asked. */
export async function findTraces(db: Queryable, scope: Scope, traceIds: string[]): Promise<Json[]> {
  const ids = [...new Set(traceIds.map(traceIdToUuid))];
  const byTrace = new Map<string, StoredSpan[]>();
  for (const span of await spansOfTraces(db, scope, ids)) {
    const list = byTrace.get(span.trace_id);
    if (list) list.push(span);
    else byTrace.set(span.trace_id, [span]);
  }
  return ids.flatMap((id) => {
    const trace = byTrace.has(id) ? traceAnswer(byTrace.get(id)!) : null;
    return trace ? [trace] : [];
  });
}

/** The trace `traceId` (hex or uuid) if this project holds it. */
export async function findTrace(db: Queryable, scope: Scope, traceId: string): Promise<Json | null> {
  return (await findTraces(db, scope, [traceId]))[0] ?? null;
}

