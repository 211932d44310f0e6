import type { Database } from "../../src/db/database.ts";
import { openPglite } from "../../src/db/pglite-driver.ts";
import { openPostgres } from "../../src/db/postgres-driver.ts";
import { uuidv7 } from "../../src/ids/uuid-v7.ts";

/**
 * A database with nothing in it, for what only an empty database shows (migrations from scratch, the
 * first-run bootstrap). On PostgreSQL (DATABASE_URL) it is a new schema, alone on the search_path of
 * every connection, dropped by `dispose`; otherwise one in-memory PGlite.
 */
export interface EmptyDatabase {
  /** On PostgreSQL, a DATABASE_URL for child processes that reaches this database; null on PGlite. */
  url: string | null;
  /** A connection pool to it; on PostgreSQL each call opens a pool of its own (as another process would). */
  connect(): Promise<Database>;
  /** Closes every pool and drops what was created. */
  dispose(): Promise<void>;
}

export async function emptyDatabase(): Promise<EmptyDatabase> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const db = await openPglite(null);
    return { url: null, connect: async () => db, dispose: () => db.close() };
  }
  const admin = await openPostgres(url, { poolSize: 1 });
  const schema = `test_empty_${uuidv7().replace(/-/g, "")}`;
  await admin.query(`CREATE SCHEMA ${schema}`);
  const scoped = `${url}${url.includes("?") ? "&" : "?"}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  const pools: Database[] = [];
  return {
    url: scoped,
    async connect() {
      const db = await openPostgres(scoped, { poolSize: 3 });
      pools.push(db);
      return db;
    },
    async dispose() {
      for (const db of pools) await db.close();
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.close();
    },
  };
}
