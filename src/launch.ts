import cluster from "node:cluster";
import { runPrimary, workerCount } from "./cluster.ts";
import { loadConfig } from "./config.ts";
import { StartupError } from "./db/startup.ts";
import { serve } from "./serve.ts";

const config = loadConfig();
const workers = workerCount(config);

if (cluster.isPrimary && workers > 1 && !config.databaseUrl) {
  process.stderr.write(
    "TESSERA_WORKERS > 1 needs DATABASE_URL: the embedded database serves one process. Starting one.\n",
  );
}

try {
  if (cluster.isPrimary && workers > 1 && config.databaseUrl) await runPrimary(config, workers);
  else await serve(config, { prepare: cluster.isPrimary });
} catch (error) {
  if (!(error instanceof StartupError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}
