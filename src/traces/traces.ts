import type { Scope } from "../accounts/scope.ts";
import type { Queryable } from "../db/database.ts";
import { fromJsonb } from "../db/jsonb-text.ts";
import { notFound } from "../errors.ts";

export interface InvocationRecord {
  traceId: string;
  spanId: string;
  references: Record<string, unknown> | null;
  inputs: unknown;
  outputs: unknown;
  status: { code: number; type?: string; message?: string };
  latencyMs: number;
  usage: unknown;
  spans: unknown[];
}

export async function findTrace(db: Queryable, scope: Scope, traceId: string) {
  const [row] = await db.query<Record<string, unknown>>(
    `SELECT trace_id, span_id, refs AS references, inputs, outputs, status, latency_ms, usage, spans, created_at
     FROM traces WHERE project_id = $1 AND trace_id = $2`,
    [scope.projectId, traceId],
  );
  if (!row) throw notFound(`Trace ${traceId} not found`);
  return fromJsonb(row);
}

/** The traces among `traceIds` that this project holds (unknown ids are left out), in the order asked. */
export async function findTraces(db: Queryable, scope: Scope, traceIds: string[]) {
  const rows = await db.query<Record<string, unknown>>(
    `SELECT trace_id, span_id, refs AS references, inputs, outputs, status, latency_ms, usage, spans, created_at
     FROM traces WHERE project_id = $1 AND trace_id = ANY($2::text[])`,
    [scope.projectId, traceIds],
  );
  const byId = new Map(rows.map((row) => [row.trace_id as string, fromJsonb(row)]));
  return [...new Set(traceIds)].flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
}
