import { bootstrapFirstRun, saveBootstrapKey } from "./accounts/bootstrap.ts";
import { loadConfig } from "./config.ts";
import { migrate } from "./db/migrate.ts";
import { openDatabase } from "./db/open.ts";
import { buildServer } from "./http/server.ts";

const config = loadConfig();
const db = await openDatabase(config);
await migrate(db);
const app = await buildServer({ config, db });

const first = await bootstrapFirstRun(db);
if (first) {
  const path = saveBootstrapKey(config.dataDir, first.key);
  const banner = [
    "",
    "  Tessera created a default organization, workspace and project, and this API key (shown once):",
    "",
    `    ${first.key}`,
    "",
    `  It is saved in ${path} (mode 0600). Try it:`,
    "",
    `    curl -s -X POST ${config.publicUrl}/api/simple/applications/query -H 'Authorization: ApiKey ${first.key}' -H 'Content-Type: application/json' -d '{}'`,
    "",
  ].join("\n");
  process.stdout.write(banner + "\n");
}

let closing = false;
async function shutdown(signal: string) {
  if (closing) return;
  closing = true;
  app.log.info({ signal }, "shutting down: finishing in-flight requests");
  await app.close();
  await db.close();
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));

await app.listen({ port: config.port, host: config.host });
app.log.info({ driver: db.driver, url: config.publicUrl }, "Tessera is listening");
