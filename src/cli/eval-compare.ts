import { CONNECTION_HELP, clientCommand, parseClientArgs, positionals, printJson } from "./client-command.ts";
import { openClient } from "./client-connection.ts";
import { formatTable, formatValue, shortMetric } from "./eval-report.ts";

export const command = clientCommand({
  name: "eval compare",
  summary: "Compare evaluation runs: metric deltas and the testcases whose results changed",
  usage: `
Usage: tessera eval compare RUN_A RUN_B [RUN…] [--limit N] [--offset N]

Matches the runs' steps by the application or evaluator they run and their scenarios by testcase
(testcase ids are content-addressed: the same row is the same testcase). Prints each metric in
every run with its change from RUN_A, then the testcases whose results differ.

Options:
  --limit <n>   most changed testcases listed (default 20); all of them are counted
  --offset <n>  list the changed testcases from the n-th on (default 0)

--json prints the server's comparison.
${CONNECTION_HELP}`,
  async run(args) {
    const options = { limit: { type: "string" }, offset: { type: "string" } } as const;
    const { values, positionals: given } = parseClientArgs(args, options);
    const ids = positionals(given, "RUN_A", "RUN_B", ...Array.from({ length: Math.max(0, given.length - 2) }, (_, i) => `RUN${i + 3}?`));
    const limit = Number(values.limit ?? 20);
    const { client } = openClient(values);
    const offset = Number(values.offset ?? 0);
    const comparison = await client.compareEvaluations(ids, Number.isInteger(limit) && limit >= 0 ? limit : 20,
      Number.isInteger(offset) && offset >= 0 ? offset : 0);
    if (values.json) {
      printJson(comparison);
      return 0;
    }
    const header = ["step", "metric", ...ids.map((_, i) => String.fromCharCode(65 + i)), ...ids.slice(1).map((_, i) => `Δ${String.fromCharCode(66 + i)}`)];
    const rows = (comparison.metrics as { step: { slug?: string; artifact: string }; path: string; values: (number | null)[]; deltas: (number | null)[] }[])
      .map((m) => [m.step.slug ?? m.step.artifact, shortMetric(m.path), ...m.values.map(formatValue), ...m.deltas.slice(1).map(signed)]);
    process.stdout.write(formatTable(header, rows));
    const s = comparison.scenarios;
    process.stdout.write(`\n${s.matched} testcases in every run, ${s.unmatched} not; ${s.changed_count} changed`);
    const partial = s.changed.length < s.changed_count;
    const shown = partial ? ` (${s.changed.length} listed from the ${ordinal(offset + 1)})` : "";
    process.stdout.write(s.changed.length ? `${shown}:\n` : ".\n");
    for (const change of s.changed) process.stdout.write(`  ${change.testcase_id}  ${change.steps.map((st: { artifact: string }) => st.artifact).join(", ")}\n`);
    if (s.next_offset !== null) process.stdout.write(`More with --offset ${s.next_offset}.\n`);
    return 0;
  },
});

const ordinal = (n: number) =>
  `${n}${n % 100 >= 11 && n % 100 <= 13 ? "th" : ["th", "st", "nd", "rd"][n % 10] ?? "th"}`;
const signed = (v: number | null) => (v === null ? "-" : `${v > 0 ? "+" : ""}${formatValue(v)}`);
