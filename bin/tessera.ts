#!/usr/bin/env node
// `tessera <command> [options]`. A command is a file under src/cli/ that exports `command`
// (src/cli/command.ts); `tessera key create` runs src/cli/key-create.ts. Adding one needs no change here.
import { existsSync, readdirSync } from "node:fs";
import { enableCompileCache } from "node:module";
import { execute, exit, type Command } from "../src/cli/command.ts";

// The commands, imported below, are kept as compiled between runs (as `npm start` keeps the server's, src/main.ts).
enableCompileCache();

const CLI_DIR = new URL("../src/cli/", import.meta.url);

async function load(file: string): Promise<Command | undefined> {
  return ((await import(new URL(file, CLI_DIR).href)) as { command?: Command }).command;
}

async function allCommands(): Promise<Command[]> {
  const files = readdirSync(CLI_DIR).filter((f) => f.endsWith(".ts")).sort();
  const commands = await Promise.all(files.map(load));
  return commands.filter((c) => c !== undefined).sort((a, b) => a.name.localeCompare(b.name));
}

/** The words before the first option: `key create --project x` → key, create. */
function leadingWords(args: string[]): string[] {
  const firstOption = args.findIndex((a) => a.startsWith("-"));
  return firstOption === -1 ? args : args.slice(0, firstOption);
}

/** The longest run of leading words that names a command file: `key create …` → key-create.ts. */
async function resolve(args: string[]): Promise<{ command: Command; rest: string[] } | null> {
  const words = leadingWords(args);
  for (let n = words.length; n > 0; n--) {
    const file = `${words.slice(0, n).join("-")}.ts`;
    if (!/^[a-z0-9-]+\.ts$/.test(file) || !existsSync(new URL(file, CLI_DIR))) continue;
    const command = await load(file);
    if (command?.name === words.slice(0, n).join(" ")) return { command, rest: args.slice(n) };
  }
  return null;
}

function help(commands: Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  return [
    "Tessera: a self-hostable versioned artifact service for LLM applications.",
    "",
    "Usage: tessera <command> [options]",
    "",
    "Commands:",
    ...commands.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    "",
    "Run 'tessera <command> --help' for a command's options.",
    "",
  ].join("\n");
}

async function main(args: string[]): Promise<number> {
  const found = await resolve(args);
  if (found) return execute(found.command, found.rest);
  const commands = await allCommands();
  if (args.length === 0 || args[0] === "--help" || args[0] === "-h" || args[0] === "help") {
    (args.length === 0 ? process.stderr : process.stdout).write(help(commands));
    return args.length === 0 ? 2 : 0;
  }
  const typed = leadingWords(args).join(" ") || args[0];
  const near = commands.filter((c) => c.name.startsWith(args[0]));
  process.stderr.write(`tessera: unknown command "${typed}"` + (near.length > 0 ? `; did you mean: ${near.map((c) => c.name).join(", ")}?` : "") + "\n\n" + help(commands));
  return 2;
}

exit(await main(process.argv.slice(2)));
