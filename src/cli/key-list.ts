import { listApiKeys, type ApiKeyInfo } from "../accounts/api-keys.ts";
import { migrate } from "../db/migrate.ts";
import { parseOptions, runIfMain, type Command } from "./command.ts";
import { withDatabase } from "./database.ts";
import { projectBySlug } from "./key-project.ts";

const day = (iso: string | null) => (iso ? iso.replace(/:\d\d\.\d+Z$/, "Z").replace("T", " ") : "never");

function table(keys: ApiKeyInfo[]): string {
  const rows = [
    ["PREFIX", "STATUS", "CREATED", "EXPIRES", "NAME"],
    ...keys.map((k) => [`tsk_${k.prefix}`, k.status, day(k.created_at), day(k.expiration_date), k.name ?? ""]),
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i])).join("  ").trimEnd()).join("\n") + "\n";
}

export const command: Command = {
  name: "key list",
  summary: "List a project's API keys and their state (active, revoked, expired), without secrets",
  usage: `
Usage: tessera key list --project <slug> [--json]

Lists the API keys of the project with that slug on the configured database (DATABASE_URL, or
embedded PGlite in TESSERA_DATA_DIR), oldest first: prefix, state, creation and expiry. Secrets are
never stored, so never shown. Revoke one with 'tessera key revoke <prefix>'.

Options:
  --project <slug>  the project (required)
  --json            print {project, keys: [{id, prefix, name, status, created_at, expiration_date,
                    revoked_at, last_used_at}]} on stdout
  -h, --help        show this help

Exit codes: 0 listed, 2 bad arguments or unknown project, 1 any other failure.
`,
  async run(args) {
    const options = parseOptions(args, { project: { type: "string" }, json: { type: "boolean" } });
    return withDatabase(async (db, where) => {
      await migrate(db);
      const project = await projectBySlug(db, options.project, where);
      const keys = await listApiKeys(db, project.id);
      const json = () => JSON.stringify({ project: options.project!.trim(), keys }, null, 2) + "\n";
      if (options.json) process.stdout.write(json());
      else process.stdout.write(table(keys));
      return 0;
    });
  },
};

await runIfMain(import.meta, command);
