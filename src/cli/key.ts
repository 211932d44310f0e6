import { commandGroup } from "./client-command.ts";

export const command = commandGroup("key", "Create, list and revoke a project's API keys on the database", `
Usage: tessera key <subcommand> [options]

Subcommands:
  create --project SLUG [--name NAME] [--expires WHEN]   create a key and print it once
  list --project SLUG [--json]                           a project's keys and their state (no secrets)
  revoke PREFIX|ID|KEY                                   stop a key for good

These work on the configured database (DATABASE_URL, or embedded PGlite in TESSERA_DATA_DIR, which
belongs to one process: stop the server first). Over HTTP, a key manages its own project's keys at
/api/keys/. Run 'tessera key <subcommand> --help' for its options.
`);
