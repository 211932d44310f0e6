import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Database } from "../../src/db/database.ts";
import { openPglite } from "../../src/db/pglite-driver.ts";
import { emptyDatabase, type EmptyDatabase } from "./empty-database.ts";

/**
 * The storage of a child process under test (server or CLI): a temporary TESSERA_DATA_DIR and, when
 * DATABASE_URL is set, an empty PostgreSQL schema; otherwise embedded PGlite inside that directory.
 */
export interface ProcessTarget {
  dir: string;
  /** The environment that points a child process at it. */
  env: Record<string, string>;
  /** Runs `work` on the same database from the test. On PGlite, only while no child has it open. */
  use<T>(work: (db: Database) => Promise<T>): Promise<T>;
  dispose(): Promise<void>;
}

export async function processTarget(): Promise<ProcessTarget> {
  const dir = mkdtempSync(join(tmpdir(), "tessera-process-"));
  const postgres: EmptyDatabase | null = process.env.DATABASE_URL ? await emptyDatabase() : null;
  let pool: Database | undefined;
  return {
    dir,
    env: postgres ? { TESSERA_DATA_DIR: dir, DATABASE_URL: postgres.url! } : { TESSERA_DATA_DIR: dir },
    async use(work) {
      if (postgres) return work((pool ??= await postgres.connect()));
      const db = await openPglite(join(dir, "db"));
      try {
        return await work(db);
      } finally {
        await db.close();
      }
    },
    async dispose() {
      await postgres?.dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
