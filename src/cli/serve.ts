import { parseOptions, type Command } from "./command.ts";

export const command: Command = {
  name: "serve",
  summary: "Start the HTTP server (npm start)",
  usage: `
Usage: tessera serve
       npm start

Starts the server on HOST:PORT (default 0.0.0.0:8000), API under /api, after applying pending
migrations. Storage is PostgreSQL when DATABASE_URL is set, otherwise embedded PGlite persisted in
TESSERA_DATA_DIR (default ./.tessera). The first start on an empty database creates a default
project and prints its API key once. See README.md for every setting. SIGTERM or SIGINT stops it
gracefully.
`,
  async run(args) {
    parseOptions(args, {});
    await import("../main.ts");
    return 0;
  },
};
