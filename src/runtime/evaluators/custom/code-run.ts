import { runCode } from "../../code/code.ts";
import { DEFAULT_SANDBOX_LIMITS } from "../../code/sandbox.ts";
import { applicationOutput, type Evaluator, findGroundTruth } from "../context.ts";
import { correctAnswerKey, requiredString, threshold } from "../parameters.ts";

/**
 * `auto_custom_code_run`: the user's `evaluate(inputs, output, trace, parameters)` in the code
 * sandbox; a number is a score passing at `threshold`, a boolean is pass/fail. The expected answer
 * is in `inputs` under its key even when only the testcase carries it.
 */
export const customCodeRun: Evaluator = async (context) => {
  const { parameters, request } = context;
  const script = requiredString(parameters, "code");
  threshold(parameters);
  const truth = findGroundTruth(context, correctAnswerKey(parameters));
  const inputs = truth.found && !Object.hasOwn(context.inputs, truth.key) ? { ...context.inputs, [truth.key]: truth.value } : context.inputs;
  const span = context.openSpan("code.run", "code");
  const result = await runCode({
    script,
    runtime: parameters.runtime,
    inputs,
    parameters,
    outputs: applicationOutput(context),
    trace: request.trace,
    sandbox: request.sandbox,
    limits: {
      timeMs: request.timeouts?.codeMs ?? DEFAULT_SANDBOX_LIMITS.timeMs,
      memoryBytes: request.limits?.codeMemoryBytes ?? DEFAULT_SANDBOX_LIMITS.memoryBytes,
    },
  });
  span.set({ entry: result.entry, outputs: result.outputs });
  span.end();
  return { outputs: result.outputs };
};
