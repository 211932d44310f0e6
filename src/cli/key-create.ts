import { findProjectBySlug } from "../accounts/accounts.ts";
import { createApiKey } from "../accounts/api-keys.ts";
import { migrate } from "../db/migrate.ts";
import { parseOptions, runIfMain, UsageError, type Command } from "./command.ts";
import { withDatabase } from "./database.ts";

export const command: Command = {
  name: "key create",
  summary: "Create an API key for a project and print it once (npm run key:create)",
  usage: `
Usage: tessera key create --project <slug> [--name <name>]
       npm run key:create -- --project <slug> [--name <name>]

Creates an API key for the project with that slug on the configured database (DATABASE_URL, or
embedded PGlite in TESSERA_DATA_DIR) and prints the raw key on stdout, once: only its hash is
stored. Send it as 'Authorization: ApiKey <key>'. The first start creates the project "default".

Options:
  --project <slug>  the project the key acts in (required)
  --name <name>     a label for the key
  -h, --help        show this help

Exit codes: 0 created, 2 bad arguments or unknown project, 1 any other failure.
`,
  async run(args) {
    const options = parseOptions(args, { project: { type: "string" }, name: { type: "string" } });
    const slug = options.project?.trim();
    if (!slug) throw new UsageError("--project <slug> is required");
    return withDatabase(async (db, where) => {
      await migrate(db);
      const project = await findProjectBySlug(db, slug);
      if (!project) {
        const known = (await db.query<{ slug: string }>("SELECT slug FROM projects ORDER BY created_at LIMIT 20")).map((p) => p.slug);
        const hint = known.length > 0 ? `; projects there: ${known.join(", ")}` : "; it has no project yet (start the server once to create \"default\")";
        throw new UsageError(`Unknown project "${slug}" in ${where}${hint}`);
      }
      const { key } = await createApiKey(db, project.id, project.owner, options.name ?? null);
      process.stderr.write(`Created an API key for project "${slug}". It is shown once; only its hash is stored:\n`);
      process.stdout.write(key + "\n");
      return 0;
    });
  },
};

await runIfMain(import.meta, command);
