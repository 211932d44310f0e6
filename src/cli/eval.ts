import { CONNECTION_HELP, commandGroup } from "./client-command.ts";

export const command = commandGroup("eval", "Evaluate applications on testsets, and compare the runs", `
Usage: tessera eval <subcommand> [options]

Subcommands:
  run --app APP --testset TESTSET --evaluator E…   evaluate, with progress, a metrics table, and
                                                    --fail-under thresholds for CI
  show RUN                                          a run's status, progress and metrics
  compare RUN_A RUN_B                               metric deltas and the testcases that changed

Run 'tessera eval <subcommand> --help' for its options.
${CONNECTION_HELP}`);
