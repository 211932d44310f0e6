import { join } from "node:path";
import type { Config } from "../config.ts";
import type { Database } from "./database.ts";
import { openPglite } from "./pglite-driver.ts";
import { openPostgres } from "./postgres-driver.ts";

type DatabaseConfig = Pick<Config, "databaseUrl" | "dataDir">
  & Partial<Pick<Config, "dbPoolSize" | "dbConnectTimeoutMs" | "dbStatementTimeoutMs" | "embeddedSharedBuffersMb">>;

/** PostgreSQL when `DATABASE_URL` is set, otherwise embedded PGlite under `TESSERA_DATA_DIR/db`. */
export function openDatabase(config: DatabaseConfig): Promise<Database> {
  if (!config.databaseUrl) {
    return openPglite(join(config.dataDir, "db"), { sharedBuffersMb: config.embeddedSharedBuffersMb });
  }
  return openPostgres(config.databaseUrl, {
    poolSize: config.dbPoolSize,
    connectTimeoutMs: config.dbConnectTimeoutMs,
    statementTimeoutMs: config.dbStatementTimeoutMs,
  });
}
