import cluster from "node:cluster";
import { bootstrapFirstRun, saveBootstrapKey } from "./accounts/bootstrap.ts";
import type { Config } from "./config.ts";
import type { Database } from "./db/database.ts";
import { migrate } from "./db/migrate.ts";
import { collectWhenIdle, giveMemoryBack } from "./http/idle-collector.ts";
import { openDatabaseAtStartup } from "./db/startup.ts";
import { buildServer } from "./http/server.ts";

const say = (line: string) => process.stderr.write(line + "\n");

/** Migrations and, on an empty database, the first project and key (printed once). */
export async function prepareDatabase(config: Config): Promise<void> {
  const db = await openDatabaseAtStartup(config, say);
  try {
    await migrate(db);
    await announceFirstRun(config, db);
  } finally {
    await db.close();
  }
}

/** The database's name, for a PostgreSQL first key saved next to another database's (null when embedded). */
function databaseName(config: Config): string | null {
  if (!config.databaseUrl) return null;
  try {
    return decodeURIComponent(new URL(config.databaseUrl).pathname.slice(1)) || "postgres";
  } catch {
    return "postgres";
  }
}

async function announceFirstRun(config: Config, db: Database) {
  const first = await bootstrapFirstRun(db);
  if (!first) return;
  const saved = saveBootstrapKey(config.dataDir, first.key, databaseName(config));
  const kept = saved.kept.length > 0 ? ` (${saved.kept.join(" and ")} already held a key and ${saved.kept.length > 1 ? "were" : "was"} left as is)` : "";
  const where = saved.path
    ? `  It is saved in ${saved.path} (mode 0600)${kept}. Try it:`
    : `  It is not saved anywhere${kept}: keep it now. Try it:`;
  process.stdout.write([
    "",
    "  Tessera created a default organization, workspace and project, and this API key (shown once):",
    "",
    `    ${first.key}`,
    "",
    where,
    "",
    `    curl -s -X POST ${config.publicUrl}/api/simple/applications/query -H 'Authorization: ApiKey ${first.key}' -H 'Content-Type: application/json' -d '{}'`,
    "",
    "  Or open the web console: this link signs you in (the key stays in the link's #fragment, never sent to the server):",
    "",
    `    ${config.publicUrl}/#key=${encodeURIComponent(first.key)}`,
    "",
    "",
  ].join("\n"));
}

/**
 * The database after its migrations. The embedded database keeps the memory their DDL made it touch
 * (300–400 MB on a new database), so when any ran it is closed and opened again.
 */
async function migrated(config: Config, db: Database): Promise<Database> {
  const applied = await migrate(db);
  if (applied.length === 0 || db.driver !== "pglite") return db;
  await db.close();
  giveMemoryBack(); // the closed instance's memory goes back now, not at some later collection
  return openDatabaseAtStartup(config, say);
}

/**
 * One server process: listens until SIGTERM/SIGINT, then finishes in-flight requests and closes the
 * database. The drain lasts at most TESSERA_SHUTDOWN_TIMEOUT_MS: then the remaining connections are
 * closed and the process exits 1, so a process manager is never left waiting on a stuck client.
 */
export async function serve(config: Config, options: { prepare: boolean }): Promise<void> {
  let db = await openDatabaseAtStartup(config, say);
  if (options.prepare) {
    db = await migrated(config, db);
    await announceFirstRun(config, db);
  }
  const app = await buildServer({ config, db });
  collectWhenIdle(app);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal, timeoutMs: config.shutdownTimeoutMs }, "shutting down: finishing in-flight requests");
    setTimeout(() => {
      app.log.error({ timeoutMs: config.shutdownTimeoutMs }, "requests still in flight after TESSERA_SHUTDOWN_TIMEOUT_MS: closing them");
      app.server.closeAllConnections();
      process.exit(1);
    }, config.shutdownTimeoutMs);
    await app.close();
    await db.close();
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
  // Started by `tessera serve` with an IPC channel: when that process is gone (even killed with
  // SIGKILL), so is this one. A cluster worker's channel is the cluster's own, which handles this itself.
  if (process.channel && !cluster.isWorker) {
    process.channel.unref();
    process.once("disconnect", () => void shutdown("parent exited"));
  }

  await app.listen({ port: config.port, host: config.host });
  giveMemoryBack(); // what starting took: migrations, compiled schemas, a young generation grown on the way
  app.log.info({ driver: db.driver, url: config.publicUrl }, "Tessera is listening");
}
