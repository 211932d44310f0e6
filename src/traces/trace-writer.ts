import type { Scope } from "../accounts/scope.ts";
import { copyField, type Database } from "../db/database.ts";
import { jsonbText } from "../db/jsonb-text.ts";
import { packSpans } from "./stored-spans.ts";
import type { InvocationRecord } from "./traces.ts";

/**
 * Traces are written in batches, off the invoke path: one COPY every `intervalMs` (or sooner when
 * `maxBatch` are waiting). An embedded database runs queries on the server's own thread, so one
 * insert per invocation would cost every caller; a batch costs one COPY per interval. Each trace
 * waits as its line of COPY text (`traceLine`), which the evaluation thread writes for its own traces.
 * Reads call `flush()` first, so a trace is readable as soon as its invocation has answered.
 * A batch the database refuses is written again line by line: a trace already stored is skipped, and
 * only the lines the database refuses are lost (and reported to `onError`), never another caller's
 * trace that shared their batch.
 */
export class TraceWriter {
  readonly #db: Pick<Database, "copyFrom">;
  readonly #intervalMs: number;
  readonly #maxBatch: number;
  /** Lines, and blocks of lines as UTF-8 (`addText`), `#lines` lines in all. */
  #pending: (string | Buffer)[] = [];
  #lines = 0;
  #timer: NodeJS.Timeout | null = null;
  #writing: Promise<void> = Promise.resolve();
  readonly #onError: (error: unknown) => void;

  constructor(db: Pick<Database, "copyFrom">, onError: (error: unknown) => void, intervalMs = 100, maxBatch = 500) {
    this.#db = db;
    this.#onError = onError;
    this.#intervalMs = intervalMs;
    this.#maxBatch = maxBatch;
  }

  add(scope: Scope, t: InvocationRecord): void {
    this.#pending.push(traceLine(scope, t));
    this.#added(1);
  }

  /** `lines` traces already written as lines (`traceLine`), one after the other, in UTF-8. */
  addText(text: Uint8Array, lines: number): void {
    if (lines === 0) return;
    this.#pending.push(Buffer.from(text.buffer, text.byteOffset, text.byteLength));
    this.#added(lines);
  }

  #added(lines: number): void {
    this.#lines += lines;
    if (this.#lines >= this.#maxBatch) void this.flush();
    else if (this.#lines > 0) this.#timer ??= setTimeout(() => void this.flush(), this.#intervalMs);
  }

  /** Writes what is waiting; resolves when everything added before the call is stored. */
  flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const batch = this.#pending;
    this.#pending = [];
    this.#lines = 0;
    if (batch.length > 0) {
      this.#writing = this.#writing.then(() => this.#write(batch));
    }
    return this.#writing;
  }

  async #write(batch: (string | Buffer)[]): Promise<void> {
    try {
      await this.#copy(batch);
    } catch {
      for (const line of batch.flatMap(linesOf)) {
        await this.#copy([line]).catch((error: { code?: string }) => {
          if (error.code === UNIQUE_VIOLATION) return; // stored already
          const [traceId, projectId] = line.split("\t", 2);
          this.#onError(Object.assign(error, { traceId, projectId }));
        });
      }
    }
  }

  #copy(lines: (string | Buffer)[]): Promise<void> {
    return this.#db.copyFrom(`COPY traces (${COLUMNS.join(", ")}) FROM STDIN`, lines);
  }
}

const UNIQUE_VIOLATION = "23505";
/** The lines of a part of a batch (a line of COPY text ends with its only unescaped line break). */
const linesOf = (part: string | Buffer): string[] =>
  typeof part === "string" ? [part] : part.toString().split("\n").slice(0, -1).map((line) => `${line}\n`);
const COLUMNS = [
  "trace_id", "project_id", "span_id", "refs", "inputs", "outputs", "status", "latency_ms", "usage", "spans",
];
const text = (value: unknown) => (value === null || value === undefined ? null : String(value));

/** A trace as a line of COPY text for the traces table: spans packed (stored-spans.ts), values as JSON. */
export function traceLine(scope: Scope, t: InvocationRecord): string {
  const fields = [
    text(t.traceId), scope.projectId, text(t.spanId), jsonbText(t.references), jsonbText(t.inputs),
    jsonbText(t.outputs), jsonbText(t.status), text(t.latencyMs), jsonbText(t.usage), jsonbText(packSpans(t, t.spans)),
  ];
  return `${fields.map(copyField).join("\t")}\n`;
}
