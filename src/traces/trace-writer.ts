import type { Scope } from "../accounts/scope.ts";
import { binaryCopyData, BinaryRows, binaryTuples, tupleField } from "../db/copy-binary.ts";
import type { Database } from "../db/database.ts";
import { uuidFromBytes } from "../testsets/testcase-id.ts";
import { invocationSpans } from "../tracing/invocation-spans.ts";
import { SPANS_COPY, writeSpan } from "../tracing/spans.ts";
import type { InvocationRecord } from "./traces.ts";

/**
 * Hosted invocations' traces are written into the spans table in batches, off the invoke path. A batch is
 * written once traces stop arriving for `intervalMs`, or `maxDelayMs` after its first trace while they keep
 * coming, or on the turn after `maxBatch` traces are waiting. An embedded database runs queries on the server's own
 * thread (about 1 ms a trace): a write while invocations keep arriving holds up the one in flight, so under
 * steady traffic the writes come rarely and in batches of up to `maxBatch` lines (200: about 0.2 s during which the
 * embedded database answers no other project), and a quiet server writes within `intervalMs`.
 * Each trace waits as its spans' rows of binary COPY (`writeTrace`), which the evaluation thread writes for its own.
 * Reads call `flush()` first, so a trace is readable as soon as its invocation has answered, and the server
 * flushes when it closes.
 * On the embedded database a batch goes in pieces of about `PIECE_MS` each, with a turn of the event loop between
 * them: an invocation that arrives during a write waits for one piece, not for the batch.
 * A piece the database refuses is written again row by row: a span already stored is skipped, and
 * only the rows the database refuses are lost (and reported to `onError`), never another caller's
 * trace that shared their batch.
 */
export class TraceWriter {
  readonly #db: Pick<Database, "copyFrom"> & Partial<Pick<Database, "driver">>;
  readonly #intervalMs: number;
  readonly #maxDelayMs: number;
  readonly #maxBatch: number;
  /** Blocks of rows (`addRows`), of `#lines` traces in all with `#records`. */
  #pending: Buffer[] = [];
  #records: [Scope, InvocationRecord][] = [];
  #lines = 0;
  #timer: NodeJS.Timeout | null = null;
  #full: NodeJS.Immediate | null = null;
  /** When the first waiting trace and the latest came (performance.now()). */
  #firstAt = 0;
  #lastAt = 0;
  #writing: Promise<void> = Promise.resolve();
  readonly #rows = new BinaryRows();
  readonly #onError: (error: unknown) => void;

  constructor(
    db: Pick<Database, "copyFrom"> & Partial<Pick<Database, "driver">>, onError: (error: unknown) => void,
    intervalMs = 100, maxBatch = 200, maxDelayMs = 1000,
  ) {
    this.#db = db;
    this.#onError = onError;
    this.#intervalMs = intervalMs;
    this.#maxBatch = maxBatch;
    this.#maxDelayMs = Math.max(intervalMs, maxDelayMs);
  }

  /** Queues an invocation's trace; its spans are built when the batch is written, not on the caller's path. */
  add(scope: Scope, t: InvocationRecord): void {
    this.#records.push([scope, t]);
    this.#added(1);
  }

  /** `traces` traces already written as rows (`writeTrace`), one after the other. */
  addRows(rows: Uint8Array, traces: number): void {
    if (traces === 0) return;
    this.#pending.push(Buffer.from(rows.buffer, rows.byteOffset, rows.byteLength));
    this.#added(traces);
  }

  #added(lines: number): void {
    const now = performance.now();
    if (this.#lines === 0) this.#firstAt = now;
    this.#lastAt = now;
    this.#lines += lines;
    // A full batch is written on the next turn of the event loop, not in the caller's: `add` is awaited on an
    // invocation's path, and the embedded database's write (tens of ms) would hold up that answer too.
    if (this.#lines >= this.#maxBatch) this.#full ??= setImmediate(this.#writeFull);
    else if (this.#lines > 0) this.#timer ??= setTimeout(this.#due, this.#intervalMs);
  }

  readonly #writeFull = () => {
    this.#full = null;
    void this.flush();
  };

  // Traces still arriving put the write off (timers are not re-armed per trace: one timer, checked when it fires).
  readonly #due = () => {
    this.#timer = null;
    const now = performance.now();
    const quietFor = now - this.#lastAt;
    const waited = now - this.#firstAt;
    if (quietFor >= this.#intervalMs || waited >= this.#maxDelayMs) return void this.flush();
    const wait = Math.min(this.#intervalMs - quietFor, this.#maxDelayMs - waited);
    this.#timer = setTimeout(this.#due, Math.max(1, wait));
  };

  /** Writes what is waiting; resolves when everything added before the call is stored. */
  flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#full) clearImmediate(this.#full);
    this.#timer = null;
    this.#full = null;
    const batch = this.#pending;
    const records = this.#records;
    this.#pending = [];
    this.#records = [];
    this.#lines = 0;
    if (batch.length > 0 || records.length > 0) {
      this.#writing = this.#writing.then(() => this.#write(this.#units(records, batch)));
    }
    return this.#writing;
  }

  /**
   * A batch's units, each added trace's rows (built only as the piece that holds it is written: 200 traces' rows
   * took 3.8 ms at once), then each row of the blocks added as rows.
   */
  *#units(records: [Scope, InvocationRecord][], batch: Buffer[]): Generator<Buffer> {
    for (const [scope, record] of records) {
      try {
        writeTrace(this.#rows, scope, record);
      } catch (error) {
        this.#onError(Object.assign(error as object, { traceId: record.traceId, projectId: scope.projectId }));
        continue;
      }
      yield this.#rows.take();
    }
    for (const block of batch) yield* binaryTuples(block);
  }

  async #write(units: Generator<Buffer>): Promise<void> {
    if (this.#db.driver !== "pglite") return this.#writePiece([...units]);
    let size = FIRST_PIECE;
    let piece: Buffer[] = [];
    let started = performance.now();
    for (const unit of units) {
      piece.push(unit);
      if (piece.length < size) continue;
      await this.#writePiece(piece);
      // The next piece is sized from this one's time (its rows built and written): spans vary from a few hundred
      // bytes to many KB.
      const took = Math.max(performance.now() - started, 0.1);
      size = Math.max(1, Math.min(MAX_PIECE, Math.round((size * PIECE_MS) / took)));
      piece = [];
      await new Promise((resolve) => setImmediate(resolve));
      started = performance.now();
    }
    if (piece.length) await this.#writePiece(piece);
  }

  async #writePiece(batch: Buffer[]): Promise<void> {
    try {
      await this.#copy(batch);
    } catch {
      for (const row of batch.flatMap((unit) => [...binaryTuples(unit)])) {
        await this.#copy([row]).catch((error: { code?: string }) => {
          if (error.code === UNIQUE_VIOLATION) return; // stored already
          const [project, trace] = [tupleField(row, 0), tupleField(row, 1)];
          const projectId = project && uuidFromBytes(project);
          this.#onError(Object.assign(error, { traceId: trace?.toString("hex"), projectId }));
        });
      }
    }
  }

  #copy(rows: Buffer[]): Promise<void> {
    return this.#db.copyFrom(SPANS_COPY, binaryCopyData(rows));
  }
}

const UNIQUE_VIOLATION = "23505";
/** How long a piece of a batch holds the embedded database, about; its first and largest size, in traces added (or
 * span lines of a block). */
const PIECE_MS = 2;
const FIRST_PIECE = 8;
const MAX_PIECE = 500;

/** A trace as rows of `SPANS_COPY`, one a span (tracing/invocation-spans.ts); nothing when it cannot be written. */
export function writeTrace(rows: BinaryRows, scope: Scope, t: InvocationRecord): void {
  const start = rows.length;
  try {
    for (const span of invocationSpans(t)) writeSpan(rows, scope, span);
  } catch (error) {
    rows.rewind(start);
    throw error;
  }
}
