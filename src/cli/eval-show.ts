import { CONNECTION_HELP, clientCommand, parseClientArgs, positionals, printJson } from "./client-command.ts";
import { openClient } from "./client-connection.ts";
import { NotFound } from "./client-lookup.ts";
import { formatTable, formatValue, metricRows, progressLine } from "./eval-report.ts";

export const command = clientCommand({
  name: "eval show",
  summary: "An evaluation's status, progress, pinned revisions and metrics",
  usage: `
Usage: tessera eval show RUN

Prints the run's status and progress, the revisions it pinned (testset, application, evaluators)
and the table of its metrics.

--json prints {run, progress, metrics}.
${CONNECTION_HELP}`,
  async run(args) {
    const { values, positionals: given } = parseClientArgs(args, {});
    const [id] = positionals(given, "RUN");
    const { client } = openClient(values);
    const run = await client.runRecord(id);
    if (!run) throw new NotFound(`No evaluation run ${id}`);
    const progress = await client.evaluationProgress(id);
    const steps = (run.data?.steps ?? []) as { key: string; type: string; references: Record<string, { id: string; slug: string; version?: string }> }[];
    const rows = metricRows(await client.evaluationMetrics(id), steps);
    if (values.json) {
      printJson({ run, progress, metrics: rows });
      return 0;
    }
    process.stdout.write(`Run ${run.id}${run.name ? ` "${run.name}"` : ""}: ${run.status}, created ${run.created_at}\n`);
    process.stdout.write(`${progressLine(progress, 0).replace(/ 0\.0\/s/, "")}\n\nPinned revisions:\n`);
    for (const step of steps) {
      const revision = Object.entries(step.references).find(([k]) => k.endsWith("_revision"));
      const artifact = Object.entries(step.references).find(([k]) => !k.endsWith("_revision") && !k.endsWith("_variant"));
      process.stdout.write(`  ${step.type.padEnd(10)} ${artifact?.[1].slug ?? step.key} v${revision?.[1].version ?? "?"}  ${revision?.[1].id ?? ""}\n`);
    }
    process.stdout.write("\n");
    process.stdout.write(rows.length ? formatTable(["evaluator", "metric", "value", "n"], rows.map((r) => [r.step, r.metric, formatValue(r.value), String(r.count)])) : "No metrics yet.\n");
    return 0;
  },
});
