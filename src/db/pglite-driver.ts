import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { lockDataDir } from "./data-dir-lock.ts";
import { joinCopyData, type Database, type Queryable } from "./database.ts";
import { initdbInChild, needsInitdb } from "./pglite-initdb.ts";
import { startMaintenance, STATISTICS_TARGET } from "./pglite-maintenance.ts";

/**
 * New WAL files are not filled with zeros first (`wal_init_zero`, on by default), which takes a file's 16 MB on disk at
 * once. PGlite runs without fsync (`-F`), so nothing it writes is known to be on disk before the system's own
 * writeback anyway; what a write call returned is in the page cache, and survives the process being killed. COPY of
 * 300,000 OTLP spans in 300 transactions wrote 1,355 MB, 470 MB of it zeros for new WAL files; PGlite's thread spent
 * 40.5-41.1 µs a span, 35.6-36.4 without the zeros and full-page writes (2-core AMD EPYC, three alternating runs
 * each). `full_page_writes` stays on: turned off alone, it changed nothing measurable at 1,000,000 spans.
 */
const WAL_WRITES = ["-c", "wal_init_zero=off"];

/**
 * bytea values (type 17) to and from PGlite's text form (`\x` and two hex digits a byte) with Node's own hex codec.
 * PGlite's built-in one goes through an array of numbers and a string a byte: 2.3 s for the 16 MB of packed ids of a
 * 1,000,000-row upload's chunks, where this takes milliseconds. Values read are plain Uint8Arrays, as PGlite's are.
 */
const BYTEA = 17;
export const byteaCodec = {
  serialize(value: unknown): string {
    if (!(value instanceof Uint8Array)) throw new TypeError("Invalid input for bytea type");
    return `\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("hex")}`;
  },
  parse(text: string): Uint8Array {
    const bytes = new Uint8Array((text.length - 2) >> 1);
    Buffer.from(bytes.buffer).write(text.slice(2), "hex");
    return bytes;
  },
};

/** How often the embedded database's tables are checked for a VACUUM or an ANALYZE (it has no autovacuum). */
const MAINTENANCE_MS = 60_000;

/**
 * Embedded PostgreSQL: persisted in `dataDir`, or in memory when `dataDir` is null (tests). Its tables are
 * vacuumed and analyzed every `maintenanceMs` when they need it (`startMaintenance`).
 */
export async function openPglite(
  dataDir: string | null, options: { maintenanceMs?: number; sharedBuffersMb?: number } = {},
): Promise<Database> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const unlock = dataDir ? lockDataDir(dataDir) : () => {};
  let pg: PGlite;
  try {
    if (dataDir && needsInitdb(dataDir)) await initdbInChild(dataDir);
    const buffers = options.sharedBuffersMb ? ["-c", `shared_buffers=${options.sharedBuffersMb}MB`] : [];
    const statistics = ["-c", `default_statistics_target=${STATISTICS_TARGET}`];
    pg = await PGlite.create(dataDir ?? undefined, {
      startParams: [...PGlite.defaultStartParams, ...WAL_WRITES, ...buffers, ...statistics],
      serializers: { [BYTEA]: byteaCodec.serialize }, parsers: { [BYTEA]: byteaCodec.parse },
    });
  } catch (error) {
    unlock();
    throw error;
  }
  // Without parameters the simple protocol runs (it accepts several statements, as migrations need).
  const run = (q: Pick<PGlite, "query" | "exec">): Queryable => ({
    copyBytes: 2 * 1024 * 1024,
    async query<T>(sql: string, params: unknown[] = []) {
      if (params.length === 0) return ((await q.exec(sql)).at(-1)?.rows ?? []) as T[];
      return (await q.query<T>(sql, params)).rows;
    },
    // PGlite reads COPY input from a Blob it exposes as the file /dev/blob.
    async copyFrom(sql: string, data: (string | Buffer)[]) {
      await q.query(sql.replace(/\bFROM\s+STDIN\b/i, "FROM '/dev/blob'"), [], { blob: bufferBlob(joinCopyData(data)) });
    },
  });
  const self = run(pg);
  // PGlite is one backend, so a session-level advisory lock never blocks a second session in the same
  // process; sessions are queued here instead, as two connections to a server would queue on the lock.
  let sessions: Promise<unknown> = Promise.resolve();
  function session<T>(work: (conn: Queryable) => Promise<T>): Promise<T> {
    const turn = sessions.then(() => work(self));
    sessions = turn.catch(() => {});
    return turn;
  }
  let pending = 0;
  const loopTurns = new LoopTurns();
  const maintenance = startMaintenance(self, options.maintenanceMs ?? MAINTENANCE_MS, () => pending > 0, (error) => {
    process.emitWarning(`Embedded database maintenance failed: ${(error as Error).message}`);
  });
  const counted = async <T>(work: () => Promise<T>): Promise<T> => {
    pending++;
    try {
      await loopTurns.before();
      return await work();
    } finally {
      pending--;
    }
  };
  return {
    driver: "pglite",
    query: (sql, params) => counted(() => self.query(sql, params)),
    copyFrom: self.copyFrom!,
    transaction: (work) => counted(() => pg.transaction((tx) => work(run(tx)))),
    pending: () => pending,
    session,
    async listen(channel, onMessage) {
      const unlisten = await pg.listen(channel, onMessage);
      return async () => unlisten();
    },
    async notify(channel, payload) {
      await pg.query("SELECT pg_notify($1, $2)", [channel, payload]);
    },
    async close() {
      await maintenance.stop();
      await pg.close();
      unlock();
    },
  };
}

/**
 * COPY input for PGlite, which reads its "Blob" once, whole, with `arrayBuffer()`: the buffer itself, not a Blob
 * that copies it in and reads it back out in parts (2-3% of the server's main thread in an evaluation's stores).
 */
function bufferBlob(bytes: Buffer): Blob {
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  const buffer = whole ? bytes.buffer : bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  return { arrayBuffer: async () => buffer } as Blob;
}

/** Longest the embedded database's statements run one after another before the event loop gets a turn. */
const TURN_MS = 20;

/**
 * PGlite runs a statement on this thread and answers it without going through the event loop, so requests that
 * make statement after statement (a testset answer reading 10,000 rows a page at a time) kept timers and sockets
 * waiting until the last one: 17.8 s while another project's reads could not even be received. Before a statement
 * that follows others for `TURN_MS` without a turn of the loop, the loop takes one (no cost while turns are frequent).
 */
class LoopTurns {
  /** When the current run of statements began, or -1 when the loop has turned since the last statement. */
  private since = -1;
  private readonly turned = () => {
    this.since = -1;
  };

  async before() {
    const now = performance.now();
    if (this.since < 0) {
      this.since = now;
      setImmediate(this.turned);
    } else if (now - this.since >= TURN_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      this.since = performance.now();
      setImmediate(this.turned);
    }
  }
}
