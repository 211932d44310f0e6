import type { Scope } from "../accounts/scope.ts";
import type { Queryable } from "../db/database.ts";
import { fromJsonb } from "../db/jsonb-text.ts";
import { notFound } from "../errors.ts";
import type { Span } from "../runtime/trace.ts";
import { type TraceRow, unpackSpans } from "./stored-spans.ts";

/** How an invocation ended, as its trace records it: an HTTP-like code, and the error's type and message. */
export interface TraceStatus {
  code: number;
  type?: string;
  message?: string;
}

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
}

export async function findTrace(db: Queryable, scope: Scope, traceId: string) {
  const [row] = await db.query<Record<string, unknown>>(
    `SELECT trace_id, span_id, refs AS references, inputs, outputs, status, latency_ms, usage, spans, created_at
     FROM traces WHERE project_id = $1 AND trace_id = $2`,
    [scope.projectId, traceId],
  );
  if (!row) throw notFound(`Trace ${traceId} not found`);
  return stored(row);
}

/** The traces among `traceIds` that this project holds (unknown ids are left out), in the order asked. */
export async function findTraces(db: Queryable, scope: Scope, traceIds: string[]) {
  const rows = await db.query<Record<string, unknown>>(
    `SELECT trace_id, span_id, refs AS references, inputs, outputs, status, latency_ms, usage, spans, created_at
     FROM traces WHERE project_id = $1 AND trace_id = ANY($2::text[])`,
    [scope.projectId, traceIds],
  );
  const byId = new Map(rows.map((row) => [row.trace_id as string, stored(row)]));
  return [...new Set(traceIds)].flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
}

/** A trace row as it was recorded: escapes undone, spans whole again. */
function stored(row: Record<string, unknown>) {
  const trace = fromJsonb(row) as Record<string, unknown> & TraceRow & { trace_id: string; spans: unknown[] | null };
  return { ...trace, spans: trace.spans && unpackSpans(trace, trace.spans) };
}
