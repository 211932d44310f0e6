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
 * On the embedded database a batch goes in pieces, with a turn of the event loop between them: a request that arrives
 * during a write waits for one piece, not for the batch. An invocation would meet the writer at each of its turns of
 * the loop (its request, the provider's answer, its own answer), so invocations' traces go in pieces of about
 * `INVOCATION_PIECE_MS`, each when no request is in flight (`quiet`, waited for `QUIET_WAIT_MS` at the most); rows
 * added as rows (an evaluation's, many at a time) in pieces of about `ROWS_PIECE_MS`, since each statement costs the
 * embedded database about 0.5 ms however small it is.
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
  readonly #quiet: ((ms: number) => Promise<void>) | null;

  constructor(db: Pick<Database, "copyFrom"> & Partial<Pick<Database, "driver">>, onError: (error: unknown) => void,
    options: TraceWriterOptions = {}) {
    const { intervalMs = 100, maxBatch = 200, maxDelayMs = 1000, quiet = null } = options;
    this.#db = db;
    this.#onError = onError;
    this.#intervalMs = intervalMs;
    this.#maxBatch = maxBatch;
    this.#maxDelayMs = Math.max(intervalMs, maxDelayMs);
    this.#quiet = quiet;
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
      this.#writing = this.#writing.then(async () => {
        await this.#write(this.#traceRows(records), INVOCATION_PIECE_MS, this.#quiet);
        await this.#write(blockRows(batch), ROWS_PIECE_MS, null);
      });
    }
    return this.#writing;
  }

  /** Each trace's rows, built only as the piece that holds it is written (200 traces' rows took 3.8 ms at once). */
  *#traceRows(records: [Scope, InvocationRecord][]): Generator<Buffer> {
    for (const [scope, record] of records) {
      try {
        writeTrace(this.#rows, scope, record);
      } catch (error) {
        this.#onError(Object.assign(error as object, { traceId: record.traceId, projectId: scope.projectId }));
        continue;
      }
      yield this.#rows.take();
    }
  }

  /** Writes `units` (a trace's rows, or a row); on the embedded database in pieces of about `pieceMs` of its work. */
  async #write(units: Iterable<Buffer>, pieceMs: number, quiet: ((ms: number) => Promise<void>) | null): Promise<void> {
    if (this.#db.driver !== "pglite") {
      const all = [...units];
      return all.length ? this.#writePiece(all) : undefined;
    }
    const next = units[Symbol.iterator]();
    let size = Math.ceil(FIRST_PIECE_PER_MS * pieceMs);
    for (let unit = next.next(); !unit.done; ) {
      // A piece waits for a moment with no request in flight (`QUIET_WAIT_MS` at the most): it then holds up at most
      // the request that arrives during it, once.
      await quiet?.(QUIET_WAIT_MS);
      const started = performance.now();
      const piece: Buffer[] = [];
      for (let bytes = 0; !unit.done && piece.length < size && bytes < MAX_PIECE_BYTES; unit = next.next()) {
        piece.push(unit.value);
        bytes += unit.value.length;
      }
      await this.#writePiece(piece);
      // The next piece is sized from this one's time (its rows built and written): spans vary from a few hundred
      // bytes to many KB.
      const took = Math.max(performance.now() - started, 0.1);
      size = Math.max(1, Math.min(MAX_PIECE, Math.round((size * pieceMs) / took)));
      if (!unit.done) await new Promise((resolve) => setImmediate(resolve));
    }
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
/**
 * How long a piece of a batch holds the embedded database, about: invocations' traces (in sequential calls, with
 * 2 ms pieces the calls that met a batch took 4–10 ms, 1–3 pieces each: p99 +5–6 ms over the provider; with 0.5 ms
 * pieces +2.6–3.0 ms), and rows added as rows. A statement costs the embedded database 0.5–0.9 ms however small it
 * is (its parse, plan, COPY set-up and commit): in 2 ms pieces an evaluation's spans went about 9 a statement, and
 * that fixed cost was a quarter of the spans' time. In 8 ms pieces of at most `MAX_PIECE_BYTES` they go about 24 a
 * statement, each piece still shorter than the batch's own result writes (15–25 ms). Then a piece's first size, in
 * traces or rows a millisecond, and its largest.
 */
const INVOCATION_PIECE_MS = 0.5;
const ROWS_PIECE_MS = 8;
const FIRST_PIECE_PER_MS = 4;
/** Longest a piece of invocations' traces waits for no request to be in flight. */
const QUIET_WAIT_MS = 2;
const MAX_PIECE = 500;
/**
 * Most COPY data a piece holds, about. A COPY that needs more than 8 new pages of the spans' table at once extends
 * the file with fallocate, which the in-memory database (tests) serves by copying the whole file into a larger array:
 * at 55 KB a statement its spans cost 170–470 µs each and more as the table grew, at 35 KB 42 µs (45–50 µs on disk,
 * either way).
 */
const MAX_PIECE_BYTES = 32 * 1024;

/** The rows of blocks added as rows, one by one. */
function* blockRows(blocks: Buffer[]): Generator<Buffer> {
  for (const block of blocks) yield* binaryTuples(block);
}

export interface TraceWriterOptions {
  /** A batch is written once no trace has come for this long… */
  intervalMs?: number;
  /** …or on the turn after this many traces are waiting… */
  maxBatch?: number;
  /** …or this long after its first trace. */
  maxDelayMs?: number;
  /** Resolves once no request is in flight, or after the time given (`RequestsInFlight.quiet`). */
  quiet?: ((ms: number) => Promise<void>) | null;
}

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
