import type { Scope } from "../accounts/scope.ts";
import type { Queryable } from "../db/database.ts";
import { toJsonbText } from "../db/jsonb-text.ts";
import { packSpans } from "./stored-spans.ts";
import type { InvocationRecord } from "./traces.ts";

/**
 * Traces are written in batches, off the invoke path: one multi-row insert every `intervalMs` (or
 * sooner when `maxBatch` are waiting). An embedded database runs queries on the server's own thread,
 * so one insert per invocation would cost every caller; a batch costs one insert per interval.
 * Reads call `flush()` first, so a trace is readable as soon as its invocation has answered.
 * A batch the database refuses is written again row by row: only the rows it refuses are lost (and
 * reported to `onError`), never another caller's trace that shared their batch.
 */
export class TraceWriter {
  readonly #db: Queryable;
  readonly #intervalMs: number;
  readonly #maxBatch: number;
  #pending: Record<string, unknown>[] = [];
  #timer: NodeJS.Timeout | null = null;
  #writing: Promise<void> = Promise.resolve();
  readonly #onError: (error: unknown) => void;

  constructor(db: Queryable, onError: (error: unknown) => void, intervalMs = 100, maxBatch = 500) {
    this.#db = db;
    this.#onError = onError;
    this.#intervalMs = intervalMs;
    this.#maxBatch = maxBatch;
  }

  add(scope: Scope, t: InvocationRecord): void {
    this.#pending.push({
      trace_id: t.traceId, project_id: scope.projectId, span_id: t.spanId, refs: t.references, inputs: t.inputs, outputs: t.outputs,
      status: t.status, latency_ms: t.latencyMs, usage: t.usage, spans: packSpans(t, t.spans),
    });
    if (this.#pending.length >= this.#maxBatch) void this.flush();
    else this.#timer ??= setTimeout(() => void this.flush(), this.#intervalMs);
  }

  /** Writes what is waiting; resolves when everything added before the call is stored. */
  flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const batch = this.#pending;
    this.#pending = [];
    if (batch.length > 0) {
      this.#writing = this.#writing.then(() => this.#write(batch));
    }
    return this.#writing;
  }

  async #write(batch: Record<string, unknown>[]): Promise<void> {
    try {
      await this.#insert(batch);
    } catch (error) {
      if (batch.length === 1) return this.#onError(error);
      for (const row of batch) {
        await this.#insert([row]).catch((rowError: unknown) =>
          this.#onError(Object.assign(rowError as object, { traceId: row.trace_id, projectId: row.project_id })));
      }
    }
  }

  #insert(batch: Record<string, unknown>[]): Promise<unknown> {
    return this.#db.query(
      `INSERT INTO traces (trace_id, project_id, span_id, refs, inputs, outputs, status, latency_ms, usage, spans)
       SELECT trace_id, project_id, span_id, refs, inputs, outputs, status, latency_ms, usage, spans
       FROM jsonb_to_recordset($1::jsonb) AS t(trace_id text, project_id uuid, span_id text, refs jsonb, inputs jsonb, outputs jsonb,
         status jsonb, latency_ms double precision, usage jsonb, spans jsonb)
       ON CONFLICT DO NOTHING`,
      [toJsonbText(JSON.stringify(batch))],
    );
  }
}
