import { defaultParameters, EVALUATORS } from "../../catalog/evaluator-templates.ts";
import type { EvaluatorContext, Evaluator, EvaluatorOutcome } from "./context.ts";
import { customCodeRun } from "./custom/code-run.ts";
import { webhookTest } from "./custom/webhook.ts";
import { aiCritique } from "./llm-judge/ai-critique.ts";
import { containsJson } from "./match/contains-json.ts";
import { exactMatch } from "./match/exact-match.ts";
import { fieldMatch } from "./match/field-match.ts";
import { jsonDiff } from "./match/json-diff.ts";
import { regexTest } from "./match/regex-test.ts";
import { contains, containsAll, containsAny, endsWith, startsWith } from "./match/text-checks.ts";
import { levenshteinDistance } from "./similarity/levenshtein.ts";
import { semanticSimilarity } from "./similarity/semantic-similarity.ts";
import { similarityMatch } from "./similarity/similarity-match.ts";

/** The hosted handler of each built-in evaluator of the catalog, by key (`agenta:builtin:<key>:v0`). */
const EVALUATOR_HANDLERS: Record<string, Evaluator> = {
  auto_exact_match: exactMatch,
  auto_contains_json: containsJson,
  auto_regex_test: regexTest,
  field_match_test: fieldMatch,
  auto_json_diff: jsonDiff,
  auto_similarity_match: similarityMatch,
  auto_semantic_similarity: semanticSimilarity,
  auto_levenshtein_distance: levenshteinDistance,
  auto_starts_with: startsWith,
  auto_ends_with: endsWith,
  auto_contains: contains,
  auto_contains_any: containsAny,
  auto_contains_all: containsAll,
  auto_custom_code_run: customCodeRun,
  auto_webhook_test: webhookTest,
  auto_ai_critique: aiCritique,
};

/** Each evaluator's catalog defaults, so a partial configuration behaves as the catalog shows it. */
const DEFAULTS = new Map(EVALUATORS.map((def) => [def.key, defaultParameters(def.parameters)]));

export function isEvaluatorKey(key: string): boolean {
  return Object.hasOwn(EVALUATOR_HANDLERS, key);
}

export async function runEvaluator(key: string, context: EvaluatorContext): Promise<EvaluatorOutcome> {
  const parameters = { ...DEFAULTS.get(key), ...withoutNulls(context.parameters) };
  return EVALUATOR_HANDLERS[key]({ ...context, parameters });
}

/** A `null` in a saved configuration means "not set": the default applies. */
function withoutNulls(parameters: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(parameters).filter(([, v]) => v !== null));
}
