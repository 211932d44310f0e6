import { badRequest, conflict, HttpError, notFound, unprocessable } from "../errors.ts";

/*
 * Every failure the evaluation engine answers a client with, defined once: its status, and its detail in the shape
 * the reference's clients read (a string, a `{message}` object, or validation issues). Call sites throw these.
 */

// Runs and their rows

/** 404: a run the caller's project does not hold. */
export const runNotFound = (runId: string) => notFound(`Evaluation run ${runId} not found`);

/** 409: a write to a closed run, with the reference's detail object. */
export const closedRun = (runId: string) =>
  new HttpError(409, { message: "Cannot modify a closed evaluation.", run_id: runId });

/** 409: a direct write to rows that another run links as its own (see execution/run-chunks.ts). */
export const linkedRows = (sourceRunId: string, runId: string) => conflict(
  `Evaluation run ${sourceRunId} holds results that run ${runId} reuses: they cannot change ` +
  `while that run exists (delete it first, or write to a run of your own)`,
);

/** 400: a batch edit whose item lacks its id (`noun` is the entity: run, scenario, queue). */
export const editWithoutId = (noun: string) => badRequest(`Each ${noun} to edit needs its id`);

/** 400: results populated for scenarios their run does not have. */
export const unknownScenarios = (missing: string[]) => badRequest(
  `Cannot populate a result for a scenario that does not exist in its run: scenario_ids=[${missing.join(", ")}]`,
);

/** 400: a slice of a run naming a scenario of another run. */
export const foreignScenario = (scenarioId: string, runId: string) =>
  badRequest(`Scenario ${scenarioId} is not one of evaluation ${runId}'s: all scenario_ids must be its own`);

/** 422: a query filter whose value is not of its column's type (`expected` says what it must be). */
export const mistypedFilter = (name: string, expected: string, value: unknown) =>
  unprocessable(`Filter ${name} must be ${expected}; got ${JSON.stringify(value)}`);

/** 422: a metric that is both a scenario's and a time bucket's; `index` is its place in the body's list. */
export const metricScenarioAndTimestamp = (index: number) => unprocessable([{
  loc: ["body", "metrics", index], msg: "A metric names a scenario_id or a timestamp, not both", type: "value_error",
}]);

/** 400: a comparison of fewer than two runs. */
export const compareNeedsTwo = () => badRequest("Compare needs two or more run_ids");

/** 400: a server-run evaluation without the steps it runs. */
export const serverRunWithoutSteps = () =>
  badRequest("A server-run evaluation needs testset_steps and application_steps or evaluator_steps");

// Queues

/** 400: an edit whose path names another queue than its body. */
export const queueIdMismatch = () => badRequest("queue_id in path must match queue.id in request body");

/** 422: a default queue given a filter: it covers its whole run. */
export const scopedDefaultQueue = () => unprocessable([{
  loc: ["body", "queue", "data"],
  msg: "A default queue covers the whole run: it takes no user_ids, scenario_ids, step_keys or batches",
  type: "value_error",
}]);

/** 409: an edit that would take a run's default queue its flag. */
export const defaultQueueStays = (queueId: string, runId: string) =>
  conflict(`Queue ${queueId} is the default queue of run ${runId}: it stays the default with its run`);

/** 409: a deletion of a run's default queue. */
export const defaultQueueDeleted = (queueId: string, runId: string) =>
  conflict(`Queue ${queueId} is the default queue of run ${runId}: it is deleted with its run`);

/** A refused simple-queue request (400 unless `status` says otherwise), its detail the `{message}` object. */
export const queueRefused = (message: string, status = 400) => new HttpError(status, { message });

/** A simple queue's sources that break one of the reference's rules (its validation error, so a 422). */
export const queueSourceInvalid = (rule: string) =>
  unprocessable([{ loc: ["body", "queue", "data"], msg: `Value error, ${rule}`, type: "value_error" }]);

/** 404: testcases the project does not hold. */
export const testcasesNotFound = (missing: string[]) => notFound(`Testcases not found: ${missing.join(", ")}`);

/** 404: traces the project does not hold. */
export const tracesNotFound = (missing: string[]) => notFound(`Traces not found: ${missing.join(", ")}`);
