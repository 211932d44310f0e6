import type { Scope } from "../accounts/scope.ts";
import { copyField, type Queryable } from "../db/database.ts";
import { jsonbText, toJsonbText } from "../db/jsonb-text.ts";
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
        await this.#insertRows([row]).catch((rowError: unknown) =>
          this.#onError(Object.assign(rowError as object, { traceId: row.trace_id, projectId: row.project_id })));
      }
    }
  }

  /** A batch through COPY where the driver has it; a trace id already stored fails it, and `#write` goes row by row. */
  #insert(batch: Record<string, unknown>[]): Promise<unknown> {
    if (!this.#db.copyFrom) return this.#insertRows(batch);
    const field = (t: Record<string, unknown>, c: string) => copyField(c in TEXT ? text(t[c]) : jsonbText(t[c]));
    const lines = batch.map((t) => `${COLUMNS.map((c) => field(t, c)).join("\t")}\n`);
    return this.#db.copyFrom(`COPY traces (${COLUMNS.join(", ")}) FROM STDIN`, lines);
  }

  /** Rows through INSERT, which skips a trace already stored. */
  #insertRows(batch: Record<string, unknown>[]): Promise<unknown> {
    return this.#db.query(
      `INSERT INTO traces (${COLUMNS.join(", ")})
       SELECT ${COLUMNS.join(", ")}
       FROM json_to_recordset($1::json) AS t(trace_id text, project_id uuid, span_id text, refs json, inputs json,
         outputs json, status json, latency_ms double precision, usage json, spans json)
       ON CONFLICT DO NOTHING`,
      [toJsonbText(JSON.stringify(batch))],
    );
  }
}

const COLUMNS = [
  "trace_id", "project_id", "span_id", "refs", "inputs", "outputs", "status", "latency_ms", "usage", "spans",
];
/** The columns stored as text (ids, a number); the others hold JSON. */
const TEXT = { trace_id: true, project_id: true, span_id: true, latency_ms: true };
const text = (value: unknown) => (value === null || value === undefined ? null : String(value));
