import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import pg from "pg";
import { from as copyStream } from "pg-copy-streams";
import { joinCopyData, type Database, type Queryable } from "./database.ts";
import { startMaintenance } from "./pglite-maintenance.ts";
import { PostgresListener } from "./postgres-listener.ts";

// bigint (counts, sums) as JS numbers: every bigint we store fits in 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

/** COPY data in pieces of about 256 KB: one CopyData message (and socket write) per line costs more than the load. */
function* coalesce(data: (string | Buffer)[]): Generator<Buffer> {
  let parts: (string | Buffer)[] = [];
  let size = 0;
  for (const part of data) {
    parts.push(part);
    size += part.length;
    if (size >= 256 * 1024) {
      yield joinCopyData(parts);
      parts = [];
      size = 0;
    }
  }
  if (parts.length) yield joinCopyData(parts);
}

/** How a process talks to PostgreSQL (src/config.ts has the defaults and their variables). */
export interface PostgresOptions {
  poolSize: number;
  /** Longest wait for a connection (a new one, or a free one from a full pool). */
  connectTimeoutMs: number;
  /** statement_timeout of every connection; the client gives up a little later should no answer come. */
  statementTimeoutMs: number;
  /** How often the tables are vacuumed and analyzed when the server's autovacuum is off. */
  maintenanceMs: number;
}

const DEFAULTS: PostgresOptions = {
  poolSize: 10, connectTimeoutMs: 5_000, statementTimeoutMs: 60_000, maintenanceMs: 60_000,
};

/**
 * `application_name` as the URL gives it (default `tessera`), and the URL without it: the listener's
 * connection is named `<name> listener`, so an operator (or a test) can tell the two apart.
 */
function splitApplicationName(connectionString: string): { url: string; name: string } {
  try {
    const url = new URL(connectionString);
    const name = url.searchParams.get("application_name");
    if (name === null) return { url: connectionString, name: "tessera" };
    url.searchParams.delete("application_name");
    return { url: url.toString(), name: name || "tessera" };
  } catch {
    return { url: connectionString, name: "tessera" };
  }
}

export async function openPostgres(connectionString: string, options: Partial<PostgresOptions> = {}): Promise<Database> {
  const { poolSize, connectTimeoutMs, statementTimeoutMs, maintenanceMs } = { ...DEFAULTS, ...options };
  const { url, name } = splitApplicationName(connectionString);
  const clientConfig: pg.ClientConfig = {
    connectionString: url,
    application_name: name,
    connectionTimeoutMillis: connectTimeoutMs,
    keepAlive: true,
    ...(statementTimeoutMs > 0 ? { statement_timeout: statementTimeoutMs, query_timeout: statementTimeoutMs + 2_000 } : {}),
  };
  const pool = new pg.Pool({ ...clientConfig, max: poolSize });
  pool.on("error", () => {}); // an idle client's lost connection is replaced on next checkout
  try {
    await pool.query("SELECT 1");
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }
  const run = (c: pg.Pool | pg.PoolClient): Queryable => ({
    copyBytes: 16 * 1024 * 1024,
    async query<T>(sql: string, params: unknown[] = []) {
      return (await c.query(sql, params)).rows as T[];
    },
    async copyFrom(sql: string, data: (string | Buffer)[]) {
      if (c instanceof pg.Pool) return session((conn) => conn.copyFrom!(sql, data));
      await pipeline(Readable.from(coalesce(data), { objectMode: false }), c.query(copyStream(sql)));
    },
  });
  const self = run(pool);
  // A server with autovacuum off never gathers statistics on its own, and without them the planner takes a
  // freshly loaded table for a few rows (the attributes index of the spans goes unused): do what it would.
  const settings = await pool.query("SELECT current_setting('autovacuum') = 'on' AS autovacuum");
  const maintenance = settings.rows[0]?.autovacuum ? null : startMaintenance(self, maintenanceMs, () => false, (error) => {
    process.emitWarning(`Database maintenance failed: ${(error as Error).message}`);
  });

  async function session<T>(work: (conn: Queryable) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    // A checked-out client has no listener for its connection's end: without one, a backend terminated
    // between two queries (restart, failover) would be an unhandled 'error' event that ends the process.
    let lost: Error | undefined;
    const onError = (error: Error) => (lost = error);
    client.on("error", onError);
    try {
      return await work(run(client));
    } finally {
      client.off("error", onError);
      client.release(lost ?? false);
    }
  }

  const listener = new PostgresListener({ ...clientConfig, application_name: `${name} listener` });
  return {
    driver: "postgres",
    query: self.query,
    copyFrom: self.copyFrom!,
    session,
    transaction: (work) =>
      session(async (conn) => {
        await conn.query("BEGIN");
        try {
          const result = await work(conn);
          await conn.query("COMMIT");
          return result;
        } catch (error) {
          await conn.query("ROLLBACK").catch(() => {});
          throw error;
        }
      }),
    listen: (channel, onMessage, events) => listener.subscribe(channel, onMessage, events),
    async notify(channel, payload) {
      await pool.query("SELECT pg_notify($1, $2)", [channel, payload]);
    },
    async close() {
      await maintenance?.stop();
      await listener.stop();
      await pool.end();
    },
  };
}
