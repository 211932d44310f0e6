import { parseArgs, type ParseArgsConfig } from "node:util";
import { TesseraError, TesseraNetworkError } from "../../packages/client/src/index.ts";
import { AuthFailure, defaultConfigFile } from "./client-connection.ts";
import { NotFound } from "./client-lookup.ts";
import { UsageError, type Command } from "./command.ts";

/*
 * The commands that talk to a server over HTTP (through the SDK) share their connection options,
 * their --json switch and exit codes scripts can rely on.
 */

export const EXIT = { ok: 0, refused: 1, usage: 2, unreachable: 3 } as const;

const CONNECTION = {
  url: { type: "string" },
  "api-key": { type: "string" },
  config: { type: "string" },
  json: { type: "boolean" },
} as const;

export const CONNECTION_HELP = `
Connection (a flag wins over the environment, which wins over the config file):
  --url <url>       the server (TESSERA_URL; default http://localhost:8000)
  --api-key <key>   a project API key (TESSERA_API_KEY). Against a server on localhost with no
                    key configured, ./.tessera/api-key (the embedded server's first key) is used
  --config <file>   a JSON file {"url": …, "api_key": …} (default ${defaultConfigFile().replace(process.env.HOME ?? "\u0000", "~")})
  --json            machine-readable output on stdout
  -h, --help        show this help

Exit codes: 0 done; 1 the server refused (its detail is printed) or something named does not
exist; 2 usage error; 3 the server cannot be reached or the API key is refused.
`;

type Options = NonNullable<ParseArgsConfig["options"]>;

/** Options (the connection's and the command's) and positional arguments; complaints are usage errors. */
export function parseClientArgs<T extends Options>(args: string[], options: T) {
  try {
    return parseArgs({ args, options: { ...CONNECTION, ...options }, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Exactly `names.length` positional arguments (trailing ones named with `?` may be missing). */
export function positionals(given: string[], ...names: string[]): string[] {
  const required = names.filter((n) => !n.endsWith("?"));
  if (given.length < required.length) throw new UsageError(`${required.slice(given.length).join(" and ")} ${required.length - given.length > 1 ? "are" : "is"} required`);
  if (given.length > names.length) throw new UsageError(`Unexpected argument '${given[names.length]}'`);
  return given;
}

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + "\n");
}

/** The server's `detail`: a sentence, or 422's `[{loc, msg}]` one per line. */
export function describeDetail(detail: unknown): string {
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail) && detail.every((d) => d && typeof d === "object" && "msg" in d)) {
    return detail.map((d) => `\n  ${Array.isArray(d.loc) ? d.loc.join(".") + ": " : ""}${d.msg}`).join("");
  }
  return JSON.stringify(detail);
}

/** The innermost cause of a failed fetch: "connect ECONNREFUSED 127.0.0.1:9" rather than "fetch failed". */
function rootCause(error: unknown): string {
  let e = error as { cause?: unknown; message?: string; name?: string } | undefined;
  while (e && typeof e === "object" && e.cause && typeof e.cause === "object") e = e.cause as typeof e;
  if (e?.name === "TimeoutError") return "no answer in time";
  return e?.message ?? String(error);
}

function report(name: string, message: string): void {
  process.stderr.write(`tessera ${name}: ${message}\n`);
}

/** Client failures as exit codes; usage errors go on to `execute`, which prints the usage hint. */
function failure(name: string, error: unknown): number {
  if (error instanceof UsageError) throw error;
  if (error instanceof TesseraNetworkError) {
    report(name, `cannot reach the server at ${new URL(error.url).origin}: ${rootCause(error)}\n  Is it running? Point TESSERA_URL (or --url) at it.`);
    return EXIT.unreachable;
  }
  if (error instanceof AuthFailure) {
    report(name, error.message);
    return EXIT.unreachable;
  }
  if (error instanceof TesseraError) {
    if (error.status === 401 || error.status === 403) {
      report(name, `the server refused the API key (${error.status}): ${describeDetail(error.detail)}\n  Check TESSERA_API_KEY, --api-key or the config file.`);
      return EXIT.unreachable;
    }
    const detail = describeDetail(error.detail);
    report(name, `the server answered ${error.status}:${detail.startsWith("\n") ? "" : " "}${detail}`);
    return EXIT.refused;
  }
  if (error instanceof NotFound) {
    report(name, error.message);
    return EXIT.refused;
  }
  throw error;
}

/** A command whose SDK failures become exit codes 1 and 3 with the server's detail on stderr. */
export function clientCommand(command: Command): Command {
  return {
    ...command,
    async run(args) {
      try {
        return await command.run(args);
      } catch (error) {
        return failure(command.name, error);
      }
    },
  };
}

/** `tessera testsets`: the group's help; a subcommand it does not have is a usage error. */
export function commandGroup(name: string, summary: string, usage: string): Command {
  return {
    name,
    summary,
    usage,
    async run(args) {
      if (args.length === 0) {
        process.stderr.write(usage.trimEnd() + "\n");
        return EXIT.usage;
      }
      throw new UsageError(`Unknown subcommand "${args[0]}"`);
    },
  };
}
