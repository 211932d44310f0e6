import { createReadStream, statSync } from "node:fs";
import { basename, extname } from "node:path";
import { CONNECTION_HELP, clientCommand, parseClientArgs, positionals, printJson } from "./client-command.ts";
import { openClient, TRANSFER_TIMEOUT_MS } from "./client-connection.ts";
import { NotFound } from "./client-lookup.ts";
import { isUuid } from "./client-refs.ts";
import { UsageError } from "./command.ts";
import { counted, formatBytes, Progress } from "./progress.ts";

const FORMATS: Record<string, "csv" | "json"> = { csv: "csv", json: "json", jsonl: "json", ndjson: "json" };

/** The file's format from --format, else its extension. JSON Lines travel as "json": the server reads both. */
function formatOf(file: string, given: string | undefined): "csv" | "json" {
  if (given !== undefined) {
    const format = FORMATS[given.toLowerCase()];
    if (!format) throw new UsageError(`--format must be csv, json or jsonl, got "${given}"`);
    return format;
  }
  const format = FORMATS[extname(file).slice(1).toLowerCase()];
  if (!format) throw new UsageError(`Cannot tell the format of "${file}" from its name: pass --format csv, json or jsonl`);
  return format;
}

/** The file's name without its extension, made into a slug (letters, digits, '.', '_', '-'). */
function slugFromFile(file: string): string {
  const slug = basename(file, extname(file)).replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[^A-Za-z0-9]+/, "").slice(0, 128);
  if (!slug) throw new UsageError(`Cannot make a testset slug from "${file}": pass --testset SLUG`);
  return slug;
}

function fileSize(file: string): number {
  let stat;
  try {
    stat = statSync(file);
  } catch (error) {
    throw new UsageError(`Cannot read "${file}": ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message}`);
  }
  if (!stat.isFile()) throw new UsageError(`"${file}" is not a file`);
  return stat.size;
}

export const command = clientCommand({
  name: "testsets upload",
  summary: "Create a testset from a CSV, JSON or JSONL file, or commit its next revision",
  usage: `
Usage: tessera testsets upload FILE [--testset SLUG|ID] [--format csv|json|jsonl] [--name NAME]

Uploads FILE (streamed: it is never held in memory) as the rows of a testset. When a testset with
that slug or id exists, the file becomes its next revision (nothing is lost: revisions are
immutable); otherwise a testset with that slug is created.

FILE is CSV with a header row, a JSON array of objects, or JSON Lines (one object per line). The
columns __id__, __flags__, __tags__ and __meta__ (as written by 'tessera testsets download') are
read back as the testcase's id and metadata.

Options:
  --testset <slug|id>  the testset (default: FILE's name without its extension)
  --format <format>    csv, json or jsonl (default: from FILE's extension)
  --name <name>        the testset's display name

A progress bar (bytes sent, rate) is drawn on stderr when it is a terminal.
--json prints {action, testset: {id, slug, name}, revision: {id, version}, rows, bytes}.
${CONNECTION_HELP}`,
  async run(args) {
    const { values, positionals: given } = parseClientArgs(args, { testset: { type: "string" }, format: { type: "string" }, name: { type: "string" } });
    const [file] = positionals(given, "FILE");
    const format = formatOf(file, values.format);
    const size = fileSize(file);
    const target = values.testset ?? slugFromFile(file);
    if (!target) throw new UsageError("--testset needs a slug or id");
    const { client, lookup } = openClient(values, TRANSFER_TIMEOUT_MS);

    const existing = await lookup.artifact("testsets", target);
    if (!existing && isUuid(target)) throw new NotFound(`No testset has id ${target}`);
    const progress = new Progress(`Uploading ${basename(file)}`, size);
    let answer: Record<string, any>;
    try {
      answer = await client.uploadTestset(counted(createReadStream(file), progress), {
        fileType: format, fileName: basename(file), testsetId: existing?.id, slug: existing ? undefined : target, name: values.name,
      });
    } catch (error) {
      progress.abort();
      throw error;
    }
    progress.done();

    const testset = answer.testset as Record<string, any>;
    const data = (testset.data ?? {}) as Record<string, any>;
    const rows: number | null = data.testcase_count ?? data.testcase_ids?.length ?? data.testcases?.length ?? null;
    const summary = {
      action: existing ? "committed" : "created",
      testset: { id: testset.id, slug: testset.slug, name: testset.name },
      revision: { id: testset.revision_id, version: Number(testset.version) },
      rows,
      bytes: progress.bytes,
    };
    if (values.json) printJson(summary);
    else {
      const what = existing ? `Committed version ${testset.version} of testset "${testset.slug}"` : `Created testset "${testset.slug}" (version ${testset.version})`;
      process.stdout.write(`${what}: ${rows ?? "?"} rows from ${basename(file)} (${formatBytes(progress.bytes)})\n  testset ${testset.id}\n  revision ${testset.revision_id}\n`);
    }
    return 0;
  },
});
