import { parseArgs, type ParseArgsConfig } from "node:util";

/**
 * A `tessera` subcommand. Each one is a file under src/cli/ that exports `command`; bin/tessera.ts
 * finds it from the words typed (`tessera key create` → src/cli/key-create.ts), and `npm run <script>`
 * may run the file directly (see `runIfMain`).
 */
export interface Command {
  /** The words after `tessera`, e.g. "key create". */
  name: string;
  /** One line for `tessera --help`. */
  summary: string;
  /** The full `--help` text. */
  usage: string;
  /** Resolves to the process exit code. */
  run(args: string[]): Promise<number>;
}

/** The command was called wrongly (bad arguments, a project that does not exist): exit code 2. */
export class UsageError extends Error {}

/** Runs `command` and turns failures into a message on stderr and an exit code (2 usage, 1 anything else). */
export async function execute(command: Command, args: string[]): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(command.usage.trimEnd() + "\n");
    return 0;
  }
  try {
    return await command.run(args);
  } catch (error) {
    const usage = error instanceof UsageError;
    process.stderr.write(`tessera ${command.name}: ${(error as Error).message}\n`);
    if (usage) process.stderr.write(`Run 'tessera ${command.name} --help' for usage.\n`);
    return usage ? 2 : 1;
  }
}

/**
 * Runs the command when its file is the process entry point (`npm run migrate` is
 * `node src/cli/migrate.ts`); does nothing when the file is only imported.
 */
export async function runIfMain(meta: ImportMeta, command: Command): Promise<void> {
  if (meta.main) exit(await execute(command, process.argv.slice(2)));
}

/** Success lets the event loop drain (a server keeps running); failure exits at once, whatever is still open. */
export function exit(code: number): void {
  if (code === 0) process.exitCode = 0;
  else process.exit(code);
}

/** `util.parseArgs` in strict mode, its complaints (unknown option, missing value) reported as usage errors. */
export function parseOptions<T extends NonNullable<ParseArgsConfig["options"]>>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
