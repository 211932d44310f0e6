import { CONNECTION_HELP, commandGroup } from "./client-command.ts";

export const command = commandGroup("apps", "Applications: deploy a variant to an environment", `
Usage: tessera apps <subcommand> [options]

Subcommands:
  deploy APP --variant V --env ENV    point an environment at a variant's latest revision

Run 'tessera apps <subcommand> --help' for its options. History, diffs and reverts of
applications: 'tessera log applications', 'tessera diff applications', 'tessera revert applications'.
${CONNECTION_HELP}`);
