import type { TesseraClient } from "../../packages/client/src/index.ts";
import { CONNECTION_HELP, clientCommand, parseClientArgs, positionals, printJson } from "./client-command.ts";
import { openClient } from "./client-connection.ts";
import { UsageError } from "./command.ts";
import { formatTable, formatValue, metricRows, parseThreshold, progressLine, revisionFor, unmet } from "./eval-report.ts";

/** An evaluator by slug; a built-in's key (auto_exact_match, …) makes an evaluator of that slug on first use. */
async function evaluatorRevision(client: TesseraClient, name: string, correctAnswerKey: string | undefined): Promise<string> {
  const existing = await client.findArtifacts("evaluators", [{ slug: name }], 1);
  if (existing.length) return (await revisionFor(client, "evaluators", name)).id;
  const template = await client.retrieveTemplate("evaluators", name);
  if (!template) throw new UsageError(`No evaluator "${name}", and no built-in evaluator has that key (see GET /api/evaluators/catalog/templates/)`);
  const created = await client.createEvaluator({
    slug: name, name: template.name, uri: `agenta:builtin:${name}:v0`,
    parameters: correctAnswerKey ? { correct_answer_key: correctAnswerKey } : undefined,
  });
  return created.revision_id;
}

export const command = clientCommand({
  name: "eval run",
  summary: "Evaluate an application on a testset, wait for it, print its metrics (and gate CI on them)",
  usage: `
Usage: tessera eval run --app APP[@VERSION] [--env ENV] --testset TESTSET[@VERSION] --evaluator E [--evaluator E…]
                        [--fail-under METRIC=VALUE…] [--no-reuse] [--name NAME] [--repeats N] [--no-wait]

Runs every testcase of the testset revision through the application revision and grades each
output with the evaluators, on the server (the run survives this command: Ctrl-C stops waiting,
not the run). A progress bar (done, failed, reused, rate, ETA) is drawn on stderr; at the end a
table of the run's metrics is printed. Revisions are pinned when the run starts.

Arguments and options:
  --app <app>            an application slug (its latest revision), SLUG@VERSION, or a revision id;
                         may be left out to grade the testcases' own 'outputs' column
  --env <env>            with --app SLUG: the revision the environment serves
  --testset <testset>    a testset slug (latest revision), SLUG@VERSION, or a revision id
  --evaluator <e>        an evaluator slug, or a built-in evaluator's key (auto_exact_match,
                         auto_regex_test, …), created on first use; repeat for several
  --correct-answer-key <column>  the expected-answer column for built-ins created here
  --fail-under <m=v>     exit 4 when metric m is below v: 'success=0.9' (pass rate), 'score=0.7'
                         (mean), or EVALUATOR.METRIC=VALUE; repeat for several
  --no-reuse             invoke everything again (by default results for the same application
                         revision, testcase and evaluator revision are reused)
  --repeats <n>          run each testcase n times
  --name <name>          the run's name
  --no-wait              start the run, print its id and return

--json prints {run, progress, metrics, failed_thresholds}.
Exit codes: as below, and 4 when a --fail-under threshold is not met (or the run failed).
${CONNECTION_HELP}`,
  async run(args) {
    const { values, positionals: given } = parseClientArgs(args, {
      app: { type: "string" }, env: { type: "string" }, testset: { type: "string" }, evaluator: { type: "string", multiple: true },
      "correct-answer-key": { type: "string" }, "fail-under": { type: "string", multiple: true }, "no-reuse": { type: "boolean" },
      repeats: { type: "string" }, name: { type: "string" }, "no-wait": { type: "boolean" },
    });
    positionals(given);
    if (!values.testset) throw new UsageError("--testset TESTSET is required");
    if (!values.app && !values.evaluator?.length) throw new UsageError("Give --app, --evaluator, or both");
    if (values.env && !values.app) throw new UsageError("--env needs --app");
    const thresholds = (values["fail-under"] ?? []).map(parseThreshold);
    const repeats = values.repeats === undefined ? undefined : Number(values.repeats);
    if (repeats !== undefined && !(Number.isInteger(repeats) && repeats >= 1)) throw new UsageError("--repeats takes a whole number from 1");
    const { client } = openClient(values);

    const testset = await revisionFor(client, "testsets", values.testset);
    const app = values.app ? await revisionFor(client, "applications", values.app, values.env) : null;
    const evaluators = [];
    for (const name of values.evaluator ?? []) evaluators.push(await evaluatorRevision(client, name, values["correct-answer-key"]));
    const run = await client.startEvaluation({
      name: values.name, testsetRevisionIds: [testset.id], applicationRevisionIds: app ? [app.id] : [],
      evaluatorRevisionIds: evaluators, repeats, reuse: !values["no-reuse"],
    });
    const label = `${app ? `${app.artifact_slug} v${app.version} ` : ""}on ${testset.artifact_slug} v${testset.version}`;
    if (values["no-wait"]) {
      if (values.json) printJson({ run });
      else process.stdout.write(`Started evaluation ${run.id} (${label})\n  follow it with: tessera eval show ${run.id}\n`);
      return 0;
    }

    process.stderr.write(`Evaluating ${label}: run ${run.id}\n`);
    const started = Date.now();
    const tty = process.stderr.isTTY === true;
    let lastLine = 0;
    const progress = await client.waitForEvaluation(run.id, {
      intervalMs: 500,
      onProgress(p) {
        const line = progressLine(p, Date.now() - started);
        if (tty) process.stderr.write(`\r\x1b[K${line}`);
        else if (Date.now() - lastLine >= 5000) {
          process.stderr.write(`${line}\n`);
          lastLine = Date.now();
        }
      },
    });
    process.stderr.write(`${tty ? "\r\x1b[K" : ""}${progressLine(progress, Date.now() - started)}\n`);

    const full = await client.runRecord(run.id);
    const rows = metricRows(await client.evaluationMetrics(run.id), full?.data?.steps ?? []);
    const failures = unmet(rows, thresholds);
    if (progress.status === "failure" || progress.status === "cancelled") failures.unshift(`the run ended ${progress.status}`);
    if (values.json) printJson({ run: full, progress, metrics: rows, failed_thresholds: failures });
    else {
      process.stdout.write(formatTable(["evaluator", "metric", "value", "n"], rows.map((r) => [r.step, r.metric, formatValue(r.value), String(r.count)])));
      process.stdout.write(`\nRun ${run.id}: ${progress.status}, ${progress.succeeded}/${progress.scenarios} scenarios ran, `
        + `${progress.cells.invoked} invocations, ${progress.cells.reused} reused\n`);
    }
    for (const f of failures) process.stderr.write(`FAIL ${f}\n`);
    return failures.length ? 4 : 0;
  },
});
