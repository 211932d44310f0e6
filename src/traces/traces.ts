import type { Scope } from "../accounts/project-defaults.ts";
import type { Queryable } from "../db/database.ts";
import { json } from "../db/database.ts";
import { notFound } from "../http/errors.ts";

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

export async function saveTrace(db: Queryable, scope: Scope, t: InvocationRecord): Promise<void> {
  await db.query(
    `INSERT INTO traces (trace_id, project_id, span_id, refs, inputs, outputs, status, latency_ms, usage, spans)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING`,
    [t.traceId, scope.projectId, t.spanId, json(t.references), json(t.inputs), json(t.outputs), json(t.status), t.latencyMs, json(t.usage), json(t.spans)],
  );
}

export async function findTrace(db: Queryable, scope: Scope, traceId: string) {
  const [row] = await db.query<Record<string, unknown>>(
    `SELECT trace_id, span_id, refs AS references, inputs, outputs, status, latency_ms, usage, spans, created_at
     FROM traces WHERE project_id = $1 AND trace_id = $2`,
    [scope.projectId, traceId],
  );
  if (!row) throw notFound(`Trace ${traceId} not found`);
  return row;
}
