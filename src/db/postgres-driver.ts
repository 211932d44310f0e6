import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import pg from "pg";
import { from as copyStream } from "pg-copy-streams";
import { joinCopyData, type Database, type Queryable } from "./database.ts";

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

export async function openPostgres(connectionString: string, poolSize = 10): Promise<Database> {
  const pool = new pg.Pool({ connectionString, max: poolSize });
  pool.on("error", () => {}); // an idle client's lost connection is replaced on next checkout
  await pool.query("SELECT 1");
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

  async function session<T>(work: (conn: Queryable) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    try {
      return await work(run(client));
    } finally {
      client.release();
    }
  }

  return {
    driver: "postgres",
    query: self.query,
    copyFrom: self.copyFrom,
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
    async listen(channel, onMessage) {
      const client = await pool.connect();
      const handler = (m: pg.Notification) => m.channel === channel && onMessage(m.payload ?? "");
      client.on("notification", handler);
      await client.query(`LISTEN "${channel.replace(/"/g, "")}"`);
      return async () => {
        client.off("notification", handler);
        await client.query(`UNLISTEN "${channel.replace(/"/g, "")}"`).catch(() => {});
        client.release();
      };
    },
    async notify(channel, payload) {
      await pool.query("SELECT pg_notify($1, $2)", [channel, payload]);
    },
    close: () => pool.end(),
  };
}
