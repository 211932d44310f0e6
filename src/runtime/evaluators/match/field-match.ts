import { applicationOutput, type Evaluator, requireGroundTruth } from "../context.ts";
import { correctAnswerKey, requiredString } from "../parameters.ts";
import { isJsonObject, MISSING, resolveDotPath } from "../../templates/json-data.ts";
import { sameJson } from "./same-value.ts";

/**
 * `field_match_test`: one field of the JSON output (a key, or a dot path such as `address.city`)
 * equals the expected answer. An output that is not a JSON object, or lacks the field, fails.
 */
export const fieldMatch: Evaluator = (context) => {
  const field = requiredString(context.parameters, "json_field");
  const expected = requireGroundTruth(context, correctAnswerKey(context.parameters));
  const output = jsonObject(applicationOutput(context));
  const value = output ? resolveDotPath(output, field) : MISSING;
  return { outputs: { success: value !== MISSING && sameField(value, expected) } };
};

function jsonObject(output: unknown): Record<string, unknown> | null {
  if (isJsonObject(output)) return output;
  if (typeof output !== "string") return null;
  try {
    const parsed: unknown = JSON.parse(output);
    return isJsonObject(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/** Testcase columns loaded from CSV are text: a number or boolean field matches its spelling too. */
function sameField(value: unknown, expected: unknown): boolean {
  if (sameJson(value, expected)) return true;
  const scalar = (v: unknown) => typeof v === "number" || typeof v === "boolean";
  if (typeof expected === "string" && scalar(value)) return String(value) === expected.trim();
  return false;
}
