import { createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { extname } from "node:path";
import { Readable, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { TesseraNetworkError, type TesseraClient } from "../../packages/client/src/index.ts";
import { CONNECTION_HELP, clientCommand, parseClientArgs, positionals, printJson } from "./client-command.ts";
import { openClient, TRANSFER_TIMEOUT_MS } from "./client-connection.ts";
import { NotFound, type Named } from "./client-lookup.ts";
import { isUuid, parseVersion } from "./client-refs.ts";
import { UsageError } from "./command.ts";
import { counted, formatBytes, Progress } from "./progress.ts";

interface Revision {
  id: string;
  version: string;
  artifact_id: string;
}

/** The revision --revision names (an id, or a version of the testset), else the latest. */
async function revisionOf(client: TesseraClient, testset: Named, wanted: string | undefined): Promise<Revision> {
  const log = async (of: Parameters<TesseraClient["log"]>[1]) => ((await client.log("testsets", of)).testset_revisions ?? []) as Revision[];
  if (wanted === undefined) {
    const [latest] = await log({ artifactId: testset.id, depth: 1 });
    if (!latest) throw new NotFound(`Testset "${testset.slug}" has no revision yet`);
    return latest;
  }
  if (isUuid(wanted)) {
    const [revision] = await log({ revisionId: wanted, depth: 1 });
    if (!revision || revision.artifact_id !== testset.id) throw new NotFound(`Revision ${wanted} is not a revision of testset "${testset.slug}"`);
    return revision;
  }
  const version = parseVersion(wanted, "--revision");
  const all = await log({ artifactId: testset.id });
  const found = all.find((r) => Number(r.version) === version);
  if (!found) throw new NotFound(`Testset "${testset.slug}" has no version ${version} (its latest is ${all[0]?.version ?? "none"})`);
  return found;
}

/** The answer's bytes; the connection failing half way is the server being unreachable (exit 3), not a local error. */
async function* received(body: ReadableStream<Uint8Array>, url: string): AsyncGenerator<Uint8Array> {
  try {
    // Node's web streams are async iterable; the DOM typings do not say so.
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) yield chunk;
  } catch (error) {
    throw new TesseraNetworkError("POST", url, error);
  }
}

/** Writes to a temporary file renamed into place at the end: a failed download leaves no half file under FILE. */
async function writeFile(chunks: AsyncIterable<Uint8Array>, file: string): Promise<void> {
  const partial = `${file}.part`;
  try {
    await pipeline(Readable.from(chunks), createWriteStream(partial));
    await rename(partial, file);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
}

async function writeStdout(chunks: AsyncIterable<Uint8Array>): Promise<void> {
  try {
    await pipeline(Readable.from(chunks), process.stdout as Writable, { end: false });
  } catch (error) {
    // The reader went away (`| head`): what it wanted, it has.
    if ((error as NodeJS.ErrnoException).code !== "EPIPE") throw error;
  }
}

export const command = clientCommand({
  name: "testsets download",
  summary: "Write a testset revision as CSV or JSON, to a file or stdout",
  usage: `
Usage: tessera testsets download SLUG|ID [--revision ID|VERSION] [--format csv|json] [--escape-formulas] [-o FILE]

Writes the testset's latest revision (or the one --revision names) as CSV or JSON, streamed.
Without -o it goes to stdout. Each row carries its testcase id (__id__) and metadata columns, so
the file can be edited and uploaded again with 'tessera testsets upload'.

Options:
  --revision <id|version>  a revision id, or a version number of the testset (3 or v3)
  --format <csv|json>      default: from -o's extension, else csv
  -o, --output <file>      write to FILE (via FILE.part, renamed when complete)
  --escape-formulas        CSV for spreadsheets: cells starting with = + - @ (or tab, CR) get a leading '
                           so a spreadsheet shows them as text instead of running them

A progress bar (bytes received, rate) is drawn on stderr when it is a terminal.
--json (with -o) prints {file, format, bytes, testset: {id, slug}, revision: {id, version}}.
${CONNECTION_HELP}`,
  async run(args) {
    const { values, positionals: given } = parseClientArgs(args, {
      revision: { type: "string" }, format: { type: "string" }, output: { type: "string", short: "o" },
      "escape-formulas": { type: "boolean" },
    });
    const [ref] = positionals(given, "SLUG|ID");
    const fromName = values.output ? extname(values.output).slice(1).toLowerCase() : "";
    const format = (values.format ?? (fromName === "json" || fromName === "csv" ? fromName : "csv")).toLowerCase();
    if (format !== "csv" && format !== "json") throw new UsageError(`--format must be csv or json, got "${values.format}"`);
    if (values.json && !values.output) throw new UsageError("--json needs -o FILE: without it the testset itself is written to stdout (use --format json for JSON rows)");
    if (values.revision !== undefined && !isUuid(values.revision)) parseVersion(values.revision, "--revision");
    const { client, lookup, connection } = openClient(values, TRANSFER_TIMEOUT_MS);

    const testset = await lookup.artifact("testsets", ref);
    if (!testset) throw new NotFound(`No testset has slug or id "${ref}"`);
    const revision = await revisionOf(client, testset, values.revision);
    const body = await client.downloadTestset(testset.id, {
      fileType: format, revisionId: revision.id, escapeFormulas: values["escape-formulas"] === true,
    });
    // Rows printed on the terminal are progress enough; a bar would cut through them.
    const progress = new Progress(`Downloading ${testset.slug} v${revision.version}`, null, { quiet: !values.output && process.stdout.isTTY });
    try {
      const chunks = counted(received(body, connection.url), progress);
      if (values.output) await writeFile(chunks, values.output);
      else await writeStdout(chunks);
    } catch (error) {
      progress.abort();
      throw error;
    }
    progress.done();

    if (!values.output) return 0;
    if (values.json) {
      printJson({
        file: values.output, format, bytes: progress.bytes,
        testset: { id: testset.id, slug: testset.slug }, revision: { id: revision.id, version: Number(revision.version) },
      });
    } else {
      process.stdout.write(`Wrote testset "${testset.slug}" version ${revision.version} as ${format.toUpperCase()} to ${values.output} (${formatBytes(progress.bytes)})\n`);
    }
    return 0;
  },
});
