import { valueText } from "../../templates/value-text.ts";
import { type EvaluatorContext, requireGroundTruth } from "../context.ts";
import { correctAnswerKey } from "../parameters.ts";

/** The expected answer as text, written as templates write values. */
export function expectedText(context: EvaluatorContext): string {
  return valueText(requireGroundTruth(context, correctAnswerKey(context.parameters)));
}
