import { applicationOutput, type Evaluator, requireGroundTruth } from "../context.ts";
import { correctAnswerKey } from "../parameters.ts";
import { sameJson } from "./same-value.ts";

/**
 * `auto_exact_match`: text equals text, or a JSON output equals a JSON expected answer (key order
 * aside). Text is never equal to an object, as in the reference.
 */
export const exactMatch: Evaluator = (context) => {
  const expected = requireGroundTruth(context, correctAnswerKey(context.parameters));
  const output = applicationOutput(context);
  const success = typeof output === "string" || typeof expected === "string" ? output === expected : sameJson(output, expected);
  return { outputs: { success } };
};
