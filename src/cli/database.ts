import { join } from "node:path";
import { loadConfig, type Config } from "../config.ts";
import type { Database } from "../db/database.ts";
import { openDatabase } from "../db/open.ts";

/** Where the configured database is, for messages: never the password of DATABASE_URL. */
export function describeDatabase(config: Pick<Config, "databaseUrl" | "dataDir">): string {
  if (!config.databaseUrl) return `embedded PGlite in ${join(config.dataDir, "db")}`;
  try {
    const url = new URL(config.databaseUrl);
    return `PostgreSQL at ${url.host}${url.pathname}`;
  } catch {
    return "PostgreSQL (DATABASE_URL)";
  }
}

/** Opens the database the server would use (same environment variables), runs `work`, closes it. */
export async function withDatabase<T>(work: (db: Database, where: string) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const db = await openDatabase(config);
  try {
    return await work(db, describeDatabase(config));
  } finally {
    await db.close();
  }
}
