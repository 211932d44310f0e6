import { join } from "node:path";
import type { Config } from "../config.ts";
import type { Database } from "./database.ts";
import { openPglite } from "./pglite-driver.ts";
import { openPostgres } from "./postgres-driver.ts";

/** PostgreSQL when `DATABASE_URL` is set, otherwise embedded PGlite under `TESSERA_DATA_DIR/db`. */
export function openDatabase(config: Pick<Config, "databaseUrl" | "dataDir">): Promise<Database> {
  return config.databaseUrl ? openPostgres(config.databaseUrl) : openPglite(join(config.dataDir, "db"));
}
