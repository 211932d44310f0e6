import type { Kind } from "../../packages/client/src/index.ts";
import { CONNECTION_HELP, clientCommand, parseClientArgs, positionals, printJson } from "./client-command.ts";
import { openClient } from "./client-connection.ts";
import { NotFound, type Lookup } from "./client-lookup.ts";
import { KINDS, parseKind } from "./client-refs.ts";
import { UsageError } from "./command.ts";

interface Revision {
  id: string;
  version: string;
  date: string | null;
  author: string | null;
  message: string | null;
  artifact_id: string;
  artifact_slug: string;
  variant_id: string;
  variant_slug: string;
}

/** What to log: a variant of the artifact SLUG names (its default one unless --variant), or a variant SLUG names. */
async function lineOf(lookup: Lookup, kind: Kind, slug: string, variant: string | undefined): Promise<{ artifactId?: string; variantId?: string }> {
  const artifact = await lookup.artifact(kind, slug);
  if (artifact) return variant === undefined ? { artifactId: artifact.id } : { variantId: (await lookup.variantOf(kind, artifact, variant)).id };
  const n = kind.slice(0, -1);
  if (variant !== undefined) throw new NotFound(`No ${n} has slug or id "${slug}"`);
  const [byVariant] = await lookup.variants(kind, { slugOrId: slug });
  if (!byVariant) throw new NotFound(`No ${n} or ${n} variant has slug or id "${slug}"`);
  return { variantId: byVariant.id };
}

const when = (iso: string | null) => (iso ? iso.replace("T", " ").replace(/\.\d+Z$/, "Z") : "-");

function table(revisions: Revision[]): string {
  const rows = [["VERSION", "DATE", "AUTHOR", "REVISION", "MESSAGE"], ...revisions.map((r) => [`v${r.version}`, when(r.date), r.author ?? "-", r.id, r.message ?? ""])];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]))).join("  ").trimEnd()).join("\n") + "\n";
}

export const command = clientCommand({
  name: "log",
  summary: "Show the revisions of an artifact's variant, newest first",
  usage: `
Usage: tessera log KIND SLUG [--variant V] [--depth N]

Lists the revisions of a variant, newest first: version, date, author (a user id), revision id and
message.

KIND is one of ${KINDS.join(", ")}.
SLUG is the artifact's slug or id (its default variant is logged), or a variant's slug.

Options:
  --variant <v>   the variant's slug or id, or its short name ('default' for 'SLUG.default')
  --depth <n>     at most N revisions

--json prints {kind, artifact: {id, slug}, variant: {id, slug}, revisions: [{id, version, date,
author, message}]}, newest first, versions as numbers.
${CONNECTION_HELP}`,
  async run(args) {
    const { values, positionals: given } = parseClientArgs(args, { variant: { type: "string" }, depth: { type: "string" } });
    const [kindWord, slug] = positionals(given, "KIND", "SLUG");
    const kind = parseKind(kindWord);
    let depth: number | undefined;
    if (values.depth !== undefined) {
      depth = Number(values.depth);
      if (!/^\d+$/.test(values.depth) || depth < 1) throw new UsageError(`--depth must be a whole number of at least 1, got "${values.depth}"`);
    }
    const { client, lookup } = openClient(values);

    const line = await lineOf(lookup, kind, slug, values.variant);
    const answer = await client.log(kind, { ...line, depth });
    const revisions = (answer[`${kind.slice(0, -1)}_revisions`] ?? []) as Revision[];
    if (values.json) {
      const first = revisions[0];
      printJson({
        kind,
        artifact: first ? { id: first.artifact_id, slug: first.artifact_slug } : null,
        variant: first ? { id: first.variant_id, slug: first.variant_slug } : null,
        revisions: revisions.map((r) => ({ id: r.id, version: Number(r.version), date: r.date, author: r.author, message: r.message })),
      });
    } else if (revisions.length === 0) process.stdout.write("No revisions yet\n");
    else process.stdout.write(table(revisions));
    return 0;
  },
});
