import { createApiKey } from "../accounts/api-keys.ts";
import { EXPIRY_FORMS, parseExpiry } from "../accounts/key-expiry.ts";
import { migrate } from "../db/migrate.ts";
import { parseOptions, runIfMain, UsageError, type Command } from "./command.ts";
import { withDatabase } from "./database.ts";
import { projectBySlug } from "./key-project.ts";

export const command: Command = {
  name: "key create",
  summary: "Create an API key for a project and print it once (npm run key:create)",
  usage: `
Usage: tessera key create --project <slug> [--name <name>] [--expires <when>]
       npm run -s key:create -- --project <slug> [--name <name>] [--expires <when>]

Creates an API key for the project with that slug on the configured database (DATABASE_URL, or
embedded PGlite in TESSERA_DATA_DIR) and prints the raw key on stdout, once: only its hash is
stored. Send it as 'Authorization: ApiKey <key>'. The first start creates the project "default".
In a script, capture it with KEY=$(npx tessera key create …) (npm run without -s prints its banner
on stdout first).

Options:
  --project <slug>  the project the key acts in (required)
  --name <name>     a label for the key
  --expires <when>  when the key stops working: ${EXPIRY_FORMS}
                    (default: never; revoke it with 'tessera key revoke')
  -h, --help        show this help

Exit codes: 0 created, 2 bad arguments or unknown project, 1 any other failure.
`,
  async run(args) {
    const options = parseOptions(args, {
      project: { type: "string" }, name: { type: "string" }, expires: { type: "string" },
    });
    const slug = options.project?.trim();
    if (!slug) throw new UsageError("--project <slug> is required");
    const expires = options.expires === undefined ? null : parseExpiry(options.expires);
    if (typeof expires === "string") throw new UsageError(`--expires: ${expires}`);
    return withDatabase(async (db, where) => {
      await migrate(db);
      const project = await projectBySlug(db, slug, where);
      const { key } = await createApiKey(db, project.id, project.owner, options.name ?? null, expires);
      const until = expires ? `, valid until ${expires.toISOString()}` : "";
      const once = "It is shown once; only its hash is stored";
      process.stderr.write(`Created an API key for project "${slug}"${until}. ${once}:\n`);
      process.stdout.write(key + "\n");
      return 0;
    });
  },
};

await runIfMain(import.meta, command);
