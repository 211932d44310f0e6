import { invalidInputs } from "../errors.ts";
import type { InvokeRequest } from "../invoke-request.ts";
import type { Usage } from "../providers/complete.ts";
import { valueText } from "../templates/value-text.ts";
import type { OpenSpan, SpanType } from "../trace.ts";

/** What a built-in evaluator sees: its parameters (catalog defaults filled in) and the run it grades. */
export interface EvaluatorContext {
  parameters: Record<string, unknown>;
  inputs: Record<string, unknown>;
  /** For secrets, env, timeouts, limits and `allowPrivateHooks`; `outputs`, `trace`, `testcase` are here too. */
  request: InvokeRequest;
  /** A child of the evaluator's span for an outside call; the orchestrator ends it if the evaluator fails. */
  openSpan(name: string, type: SpanType): OpenSpan;
}

export interface EvaluatorOutcome {
  outputs: unknown;
  usage?: Usage;
}

export type Evaluator = (context: EvaluatorContext) => EvaluatorOutcome | Promise<EvaluatorOutcome>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The application's output; an evaluator has nothing to grade without it. */
export function applicationOutput(context: EvaluatorContext): unknown {
  const outputs = context.request.outputs;
  if (outputs === undefined || outputs === null) throw invalidInputs("outputs is required: the application output to evaluate");
  return outputs;
}

/** The output as text: strings as they are, anything else as JSON (as templates write values). */
export function outputText(context: EvaluatorContext): string {
  return valueText(applicationOutput(context));
}

/** The testcase's columns: a testcase may come as its columns or as `{id, data: {...columns}}`. */
export function testcaseColumns(testcase: unknown): Record<string, unknown> {
  if (!isObject(testcase)) return {};
  return isObject(testcase.data) ? testcase.data : testcase;
}

export type GroundTruth = { found: true; key: string; value: unknown } | { found: false; key: string };

/** `inputs[correct_answer_key]`, else the testcase's column of that name. */
export function findGroundTruth(context: EvaluatorContext, key: string): GroundTruth {
  if (Object.hasOwn(context.inputs, key)) return { found: true, key, value: context.inputs[key] };
  const columns = testcaseColumns(context.request.testcase);
  if (Object.hasOwn(columns, key)) return { found: true, key, value: columns[key] };
  return { found: false, key };
}

export function requireGroundTruth(context: EvaluatorContext, key: string): unknown {
  const truth = findGroundTruth(context, key);
  if (!truth.found) throw invalidInputs(`Missing expected answer: no '${key}' in inputs or testcase (set by correct_answer_key)`);
  return truth.value;
}
