import { migrate } from "../db/migrate.ts";
import { parseOptions, runIfMain, type Command } from "./command.ts";
import { withDatabase } from "./database.ts";

export const command: Command = {
  name: "migrate",
  summary: "Apply the database migrations that have not run yet (npm run migrate)",
  usage: `
Usage: tessera migrate
       npm run migrate

Applies the versioned SQL migrations that have not run yet to the configured database
(PostgreSQL when DATABASE_URL is set, otherwise embedded PGlite in TESSERA_DATA_DIR) and prints
what it applied. The server does the same at start, so this is only needed to migrate ahead of
a deploy. Safe to run more than once and from several processes at once.
`,
  async run(args) {
    parseOptions(args, {});
    return withDatabase(async (db, where) => {
      const applied = await migrate(db);
      if (applied.length === 0) process.stdout.write(`Database is up to date (${where}).\n`);
      else process.stdout.write(`Applied ${applied.length} migration(s) to ${where}:\n${applied.map((v) => `  ${v}\n`).join("")}`);
      return 0;
    });
  },
};

await runIfMain(import.meta, command);
