import { invalidInputs } from "../../errors.ts";
import { applicationOutput, type Evaluator, requireGroundTruth } from "../context.ts";
import { correctAnswerKey, flag, threshold } from "../parameters.ts";

type Leaves = Map<string, unknown>;

/**
 * `auto_json_diff`, scored as the reference scores it: both sides are flattened to `a.b.0.c` leaf
 * paths; each path of the expected answer (plus, with `predict_keys`, each path of the output)
 * scores 1 when both sides hold an equal value there (the same type, with `compare_schema_only`),
 * and the score is the mean. An output that is not JSON scores 0.
 */
export const jsonDiff: Evaluator = (context) => {
  const { parameters } = context;
  const key = correctAnswerKey(parameters);
  const pass = threshold(parameters);
  const caseInsensitive = flag(parameters, "case_insensitive_keys", false);
  const schemaOnly = flag(parameters, "compare_schema_only", false);
  const predictKeys = flag(parameters, "predict_keys", false);
  const expected = parseJson(requireGroundTruth(context, key));
  if (expected === undefined || typeof expected !== "object" || expected === null) {
    throw invalidInputs(`Expected answer '${key}' must be a JSON object or array (or its JSON text)`);
  }
  const output = parseJson(applicationOutput(context));
  if (output === undefined || typeof output !== "object" || output === null) return { outputs: { score: 0, success: 0 >= pass } };

  const truth = flatten(expected, caseInsensitive);
  const actual = flatten(output, caseInsensitive);
  const paths = new Set(truth.keys());
  if (predictKeys) for (const path of actual.keys()) paths.add(path);

  let matched = 0;
  for (const path of paths) {
    if (!truth.has(path) || !actual.has(path)) continue;
    const [a, b] = [truth.get(path), actual.get(path)];
    if (schemaOnly ? typeName(a) === typeName(b) : a === b) matched++;
  }
  const score = paths.size === 0 ? 0 : matched / paths.size;
  return { outputs: { score, success: score >= pass } };
};

function parseJson(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}

function flatten(value: object, caseInsensitive: boolean): Leaves {
  const leaves: Leaves = new Map();
  const walk = (node: unknown, path: string) => {
    if (typeof node === "object" && node !== null) {
      for (const [k, v] of Object.entries(node)) walk(v, path === "" ? k : `${path}.${k}`);
    } else {
      leaves.set(caseInsensitive ? path.toLowerCase() : path, node);
    }
  };
  walk(value, "");
  return leaves;
}

const typeName = (value: unknown) => (value === null ? "null" : typeof value);
