import { CONNECTION_HELP, clientCommand, parseClientArgs, positionals, printJson } from "./client-command.ts";
import { openClient } from "./client-connection.ts";
import { KINDS, parseKind, parseRevision } from "./client-refs.ts";

export const command = clientCommand({
  name: "revert",
  summary: "Commit a new revision whose data is that of an older one",
  usage: `
Usage: tessera revert KIND REV [--message M]

Commits, on the variant of the revision REV, a new revision whose data equals REV's. History is
never rewritten: the revisions after REV stay, and the revert is the variant's newest version.
An environment keeps pointing where it did until you deploy again.

KIND is one of ${KINDS.join(", ")}. REV is a revision id, or SLUG@VERSION: version VERSION of
the variant with that slug, or of the default variant of the artifact with that slug.

Options:
  --message <m>   the new revision's message (default: "Revert to vN (id)")

--json prints {revision: {id, version, date, author, message, artifact_id, artifact_slug,
variant_id, variant_slug}}.
${CONNECTION_HELP}`,
  async run(args) {
    const { values, positionals: given } = parseClientArgs(args, { message: { type: "string" } });
    const [kindWord, rev] = positionals(given, "KIND", "REV");
    const kind = parseKind(kindWord);
    const ref = parseRevision(rev, "REV");
    const { client } = openClient(values);

    const answer = await client.revert(kind, ref, { message: values.message });
    const r = answer[`${kind.slice(0, -1)}_revision`] as Record<string, any>;
    const revision = {
      id: r.id, version: Number(r.version), date: r.date, author: r.author, message: r.message,
      artifact_id: r.artifact_id, artifact_slug: r.artifact_slug, variant_id: r.variant_id, variant_slug: r.variant_slug,
    };
    if (values.json) printJson({ revision });
    else process.stdout.write(`Committed version ${revision.version} on ${revision.variant_slug}: ${revision.message}\n  revision ${revision.id}\n`);
    return 0;
  },
});
