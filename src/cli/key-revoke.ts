import { parseArgs } from "node:util";
import { findApiKey, revokeApiKey } from "../accounts/api-keys.ts";
import { migrate } from "../db/migrate.ts";
import { runIfMain, UsageError, type Command } from "./command.ts";
import { withDatabase } from "./database.ts";

export const command: Command = {
  name: "key revoke",
  summary: "Revoke an API key for good (by prefix, id or the key itself)",
  usage: `
Usage: tessera key revoke <prefix|id|key>

Revokes the API key named by its prefix (as 'tessera key list' shows it, with or without tsk_), its
id, or the whole key, on the configured database (DATABASE_URL, or embedded PGlite in
TESSERA_DATA_DIR). The key stays listed, as revoked, and every request with it is answered 401
"API key has been revoked": at once by servers on PostgreSQL (they are told through NOTIFY), and at
the latest TESSERA_CACHE_MAX_AGE_MS (30 s by default) later by one that missed the notification. Revoking a revoked key changes nothing.

Options:
  -h, --help  show this help

Exit codes: 0 revoked, 2 bad arguments or no such key, 1 any other failure.
`,
  async run(args) {
    let given: string[];
    try {
      given = parseArgs({ args, options: {}, strict: true, allowPositionals: true }).positionals;
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    if (given.length !== 1) throw new UsageError("name exactly one key: its prefix, its id or the key");
    return withDatabase(async (db, where) => {
      await migrate(db);
      const found = await findApiKey(db, null, given[0]);
      if (!found) {
        throw new UsageError(`No API key "${given[0]}" in ${where} ('tessera key list --project <slug>' shows them)`);
      }
      await revokeApiKey(db, found.id);
      process.stderr.write(`Revoked API key tsk_${found.prefix}.\n`);
      return 0;
    });
  },
};

await runIfMain(import.meta, command);
