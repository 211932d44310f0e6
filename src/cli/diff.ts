import { CONNECTION_HELP, clientCommand, parseClientArgs, positionals, printJson } from "./client-command.ts";
import { openClient } from "./client-connection.ts";
import { KINDS, parseKind, parseRevision } from "./client-refs.ts";
import { formatDiff, type RevisionDiff } from "./diff-format.ts";

export const command = clientCommand({
  name: "diff",
  summary: "Show what changed between two revisions",
  usage: `
Usage: tessera diff KIND --base REV --target REV

Shows what changed from the revision --base to the revision --target: the metadata fields that
differ (message, name, …), then the data — a JSON Patch for applications, workflows, evaluators
and environments (+ add, - remove, ~ replace, with the new value), or for testsets the rows
added (+), removed (-) and changed (~, field by field) and the columns added and removed.

KIND is one of ${KINDS.join(", ")}. REV is a revision id, or SLUG@VERSION: version VERSION of
the variant with that slug, or of the default variant of the artifact with that slug
(capitals@1, capitals.default@2, v-prefixed versions work too: capitals@v1).

--json prints the server's diff: {base, target, data, metadata}.
${CONNECTION_HELP}`,
  async run(args) {
    const { values, positionals: given } = parseClientArgs(args, { base: { type: "string" }, target: { type: "string" } });
    const [kindWord] = positionals(given, "KIND");
    const kind = parseKind(kindWord);
    const base = parseRevision(values.base, "--base");
    const target = parseRevision(values.target, "--target");
    const { client } = openClient(values);

    const answer = await client.diff(kind, base, target);
    if (values.json) printJson(answer.diff);
    else process.stdout.write(formatDiff(answer.diff as RevisionDiff));
    return 0;
  },
});
