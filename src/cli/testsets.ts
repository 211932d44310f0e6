import { CONNECTION_HELP, commandGroup } from "./client-command.ts";

export const command = commandGroup("testsets", "Upload and download testsets as CSV, JSON or JSONL files", `
Usage: tessera testsets <subcommand> [options]

Subcommands:
  upload FILE [--testset SLUG|ID]     create a testset from a file, or commit its next revision
  download SLUG|ID [-o FILE]          write a testset revision as CSV or JSON (stdout without -o)

Run 'tessera testsets <subcommand> --help' for its options.
${CONNECTION_HELP}`);
