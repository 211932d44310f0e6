import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Database } from "./database.ts";

const MIGRATIONS_DIR = fileURLToPath(new URL("./migrations/", import.meta.url));
// Any constant shared by every Tessera process: it names the advisory lock that serialises migrations.
const MIGRATION_LOCK = 7_353_774_201;

const migrationFiles = () => readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith(".sql")).sort();

/** The migrations this code has that the database has not applied (all of them on an empty database). */
export async function pendingMigrations(db: Database): Promise<string[]> {
  const [table] = await db.query<{ exists: boolean }>("SELECT to_regclass('schema_migrations') IS NOT NULL AS exists");
  const done = table.exists ? new Set((await db.query<{ version: string }>("SELECT version FROM schema_migrations")).map((r) => r.version)) : new Set();
  return migrationFiles().map((f) => f.replace(/\.sql$/, "")).filter((v) => !done.has(v));
}

/**
 * Applies the versioned SQL files in `migrations/` that have not run yet, each in its own transaction.
 * A session-level advisory lock makes concurrent starts safe: the second process waits, then finds
 * nothing left to do.
 */
export async function migrate(db: Database): Promise<string[]> {
  const files = migrationFiles();
  return db.session(async (conn) => {
    await conn.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
    try {
      await conn.query(
        "CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
      );
      const done = new Set((await conn.query<{ version: string }>("SELECT version FROM schema_migrations")).map((r) => r.version));
      const applied: string[] = [];
      for (const file of files) {
        const version = file.replace(/\.sql$/, "");
        if (done.has(version)) continue;
        const sql = readFileSync(MIGRATIONS_DIR + file, "utf8");
        await conn.query("BEGIN");
        try {
          await conn.query(sql);
          await conn.query("INSERT INTO schema_migrations (version) VALUES ($1)", [version]);
          await conn.query("COMMIT");
        } catch (error) {
          await conn.query("ROLLBACK");
          throw new Error(`migration ${file} failed: ${(error as Error).message}`);
        }
        applied.push(version);
      }
      return applied;
    } finally {
      await conn.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]);
    }
  });
}
