import { bootstrapFirstRun, saveBootstrapKey } from "./accounts/bootstrap.ts";
import type { Config } from "./config.ts";
import { migrate } from "./db/migrate.ts";
import { openDatabase } from "./db/open.ts";
import { collectWhenIdle } from "./http/idle-collector.ts";
import { buildServer } from "./http/server.ts";

/** Migrations and, on an empty database, the first project and key (printed once). */
export async function prepareDatabase(config: Config): Promise<void> {
  const db = await openDatabase(config);
  try {
    await migrate(db);
    await announceFirstRun(config, db);
  } finally {
    await db.close();
  }
}

async function announceFirstRun(config: Config, db: Awaited<ReturnType<typeof openDatabase>>) {
  const first = await bootstrapFirstRun(db);
  if (!first) return;
  const path = saveBootstrapKey(config.dataDir, first.key);
  process.stdout.write([
    "",
    "  Tessera created a default organization, workspace and project, and this API key (shown once):",
    "",
    `    ${first.key}`,
    "",
    `  It is saved in ${path} (mode 0600). Try it:`,
    "",
    `    curl -s -X POST ${config.publicUrl}/api/simple/applications/query -H 'Authorization: ApiKey ${first.key}' -H 'Content-Type: application/json' -d '{}'`,
    "",
    "",
  ].join("\n"));
}

/** One server process: listens until SIGTERM/SIGINT, then finishes in-flight requests and closes the database. */
export async function serve(config: Config, options: { prepare: boolean }): Promise<void> {
  const db = await openDatabase(config);
  if (options.prepare) {
    await migrate(db);
    await announceFirstRun(config, db);
  }
  const app = await buildServer({ config, db });
  collectWhenIdle(app);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, "shutting down: finishing in-flight requests");
    await app.close();
    await db.close();
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));

  await app.listen({ port: config.port, host: config.host });
  app.log.info({ driver: db.driver, url: config.publicUrl }, "Tessera is listening");
}
