import { catalogFlags, deepFreeze, presetOf, type CatalogEntry, type CatalogTemplate, type JsonSchema } from "./entry.ts";
import { SCORE_OUTPUTS, SUCCESS_OUTPUTS, boolean, number, object, openObject, string } from "./json-schema.ts";
import { DEFAULT_MODEL } from "./models.ts";
import { MESSAGES_SCHEMA, MODEL_SCHEMA } from "./types.ts";

/*
 * Built-in evaluators, written once. The catalog templates (`/evaluators/catalog/...`) and the
 * legacy list (`/simple/evaluators/templates`, see legacy-evaluator-templates.ts) are both derived
 * from EVALUATORS. Parameter schemas carry `title`, `default` and the `x-ag-*` UI hints the legacy
 * `settings_template` is rebuilt from. Default parameters are the schema's defaults.
 */

export interface EvaluatorPresetDefinition {
  key: string;
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface EvaluatorDefinition {
  key: string;
  name: string;
  description: string;
  /** Legacy grouping tags (`functional`, `classifiers`, `similarity`, `ai_llm`). */
  tags: string[];
  /** Usable without configuration (the legacy `direct_use`). */
  direct_use: boolean;
  requires_llm_api_keys: boolean;
  recommended?: boolean;
  archived?: boolean;
  parameters: JsonSchema;
  outputs: JsonSchema;
  /** Presets beyond `default`, which an evaluator gets when its schema's defaults are a complete configuration. */
  presets?: EvaluatorPresetDefinition[];
}

const correctAnswerKey = (description = "Testcase column that holds the expected answer."): JsonSchema =>
  string({ title: "Expected answer column", default: "correct_answer", description, "x-ag-type": "text", "x-ag-ui-advanced": true });

const caseSensitive = boolean({ title: "Case sensitive", default: true, description: "Whether letter case must match.", "x-ag-type": "bool" });

const text = (title: string, description: string, extra: JsonSchema = {}) =>
  string({ title, description, "x-ag-type": "text", ...extra });

const EVALUATOR_INPUTS = openObject({ description: "The testcase's columns and the application's inputs." });

const JUDGE_OUTPUT_RULES =
  "Answer with a JSON object {\"score\": <number from 0.0 to 1.0>} and nothing else. 1.0 is best, 0.0 is worst.";

function judgePrompt(task: string): { role: string; content: string }[] {
  return [
    { role: "system", content: `${task}\n\n${JUDGE_OUTPUT_RULES}` },
    { role: "user", content: "## Inputs\n{{inputs}}\n\n## Output to grade\n{{outputs}}" },
  ];
}

const DEFAULT_JUDGE = judgePrompt(
  "You are an expert evaluator of model outputs. Grade the output against the inputs and any instructions they contain.\n" +
    "- Verify every claim carefully.\n- Tell minor errors from major ones.\n- Give 1.0 or 0.0 only when you are certain.",
);

const JUDGE_SCORE_SCHEMA = {
  name: "score",
  schema: object({ score: number({ minimum: 0, maximum: 1, description: "The grade." }) }, { required: ["score"], additional: false }),
  strict: true,
};

const DEFAULT_CODE = `function evaluate(inputs, output, trace) {
  // Return a number (score from 0 to 1), a boolean, or an object such as {score, success}.
  const expected = inputs.correct_answer;
  return typeof output === "string" && expected !== undefined && output.includes(String(expected)) ? 1.0 : 0.0;
}
`;

export const EVALUATORS: readonly EvaluatorDefinition[] = deepFreeze([
  {
    key: "auto_exact_match",
    name: "Exact Match",
    description: "Checks that the output equals the expected answer exactly.",
    tags: ["functional"],
    direct_use: true,
    requires_llm_api_keys: false,
    recommended: true,
    parameters: object({ correct_answer_key: correctAnswerKey() }, { additional: false }),
    outputs: SUCCESS_OUTPUTS,
  },
  {
    key: "auto_contains_json",
    name: "Contains JSON",
    description: "Checks that the output contains a valid JSON value.",
    tags: ["functional", "classifiers"],
    direct_use: true,
    requires_llm_api_keys: false,
    parameters: object({}, { additional: false }),
    outputs: SUCCESS_OUTPUTS,
  },
  {
    key: "auto_regex_test",
    name: "Regex Test",
    description: "Checks the output against a regular expression; passes when it matches (or, if so configured, when it does not).",
    tags: ["classifiers", "functional"],
    direct_use: false,
    requires_llm_api_keys: false,
    parameters: object(
      {
        regex_pattern: string({ title: "Regex pattern", description: "Pattern to test, e.g. ^\\d{3}$", "x-ag-type": "regex" }),
        regex_should_match: boolean({ title: "Should match", default: true, description: "Pass when the pattern matches (true) or when it does not (false).", "x-ag-type": "bool" }),
        correct_answer_key: string({ title: "Expected answer column", description: "Testcase column shown next to the results (optional).", "x-ag-type": "text", "x-ag-ui-advanced": true }),
      },
      { required: ["regex_pattern"], additional: false },
    ),
    outputs: SUCCESS_OUTPUTS,
    presets: [
      {
        key: "email",
        name: "Email address",
        description: "Passes when the output contains an email address.",
        parameters: { regex_pattern: "[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,}", regex_should_match: true },
      },
    ],
  },
  {
    key: "field_match_test",
    name: "JSON Field Match",
    description: "Reads one field of the JSON output and checks that it equals the expected answer.",
    tags: ["functional"],
    direct_use: false,
    requires_llm_api_keys: false,
    parameters: object(
      { json_field: text("JSON field", "Field of the JSON output to compare, e.g. country or address.city."), correct_answer_key: correctAnswerKey() },
      { required: ["json_field"], additional: false },
    ),
    outputs: SUCCESS_OUTPUTS,
    presets: [
      { key: "answer-field", name: "Answer field", description: "Compares the output's `answer` field.", parameters: { json_field: "answer", correct_answer_key: "correct_answer" } },
    ],
  },
  {
    key: "auto_json_diff",
    name: "JSON Diff Match",
    description: "Compares the JSON output with the expected JSON and scores their agreement from 0 to 1.",
    tags: ["similarity", "functional"],
    direct_use: false,
    requires_llm_api_keys: false,
    parameters: object(
      {
        compare_schema_only: boolean({ title: "Compare schema only", default: false, description: "Compare key names and value types only, not values.", "x-ag-type": "bool", "x-ag-ui-advanced": true }),
        predict_keys: boolean({ title: "Only expected keys", default: false, description: "Ignore keys of the output that the expected JSON does not have.", "x-ag-type": "bool", "x-ag-ui-advanced": true }),
        case_insensitive_keys: boolean({ title: "Case-insensitive keys", default: false, description: "Treat 'key', 'Key' and 'KEY' as the same key.", "x-ag-type": "bool", "x-ag-ui-advanced": true }),
        correct_answer_key: correctAnswerKey(),
      },
      { additional: false },
    ),
    outputs: SCORE_OUTPUTS,
  },
  {
    key: "auto_similarity_match",
    name: "Similarity Match",
    description: "Scores the word overlap (Jaccard similarity) between the output and the expected answer; passes at or above the threshold.",
    tags: ["similarity", "functional"],
    direct_use: false,
    requires_llm_api_keys: false,
    parameters: object(
      {
        similarity_threshold: number({ title: "Similarity threshold", default: 0.5, minimum: 0, maximum: 1, description: "Lowest similarity that passes.", "x-ag-type": "float" }),
        correct_answer_key: correctAnswerKey(),
      },
      { required: ["similarity_threshold"], additional: false },
    ),
    outputs: SCORE_OUTPUTS,
    presets: [
      { key: "strict", name: "Strict", description: "Passes only on near-identical wording.", parameters: { similarity_threshold: 0.9, correct_answer_key: "correct_answer" } },
    ],
  },
  {
    key: "auto_semantic_similarity",
    name: "Semantic Similarity Match",
    description: "Scores how close the output's meaning is to the expected answer using embeddings.",
    tags: ["similarity", "ai_llm"],
    direct_use: false,
    requires_llm_api_keys: true,
    parameters: object({ correct_answer_key: correctAnswerKey() }, { required: ["correct_answer_key"], additional: false }),
    outputs: SCORE_OUTPUTS,
  },
  {
    key: "auto_levenshtein_distance",
    name: "Levenshtein Distance",
    description: "Computes the edit distance between the output and the expected answer; with a threshold, passes when the distance is within it.",
    tags: ["functional"],
    direct_use: false,
    requires_llm_api_keys: false,
    parameters: object(
      {
        threshold: number({ title: "Threshold", minimum: 0, description: "Largest distance that passes; without it only the distance is reported.", "x-ag-type": "float" }),
        correct_answer_key: correctAnswerKey(),
      },
      { additional: false },
    ),
    outputs: SCORE_OUTPUTS,
  },
  {
    key: "auto_starts_with",
    name: "Starts With",
    description: "Checks that the output starts with a prefix.",
    tags: ["classifiers", "functional"],
    direct_use: false,
    requires_llm_api_keys: false,
    parameters: object(
      { prefix: text("Prefix", "Text the output must start with."), case_sensitive: caseSensitive },
      { required: ["prefix"], additional: false },
    ),
    outputs: SUCCESS_OUTPUTS,
    presets: [{ key: "yes", name: "Starts with yes", description: "Passes when the answer opens with \"yes\".", parameters: { prefix: "yes", case_sensitive: false } }],
  },
  {
    key: "auto_ends_with",
    name: "Ends With",
    description: "Checks that the output ends with a suffix.",
    tags: ["classifiers", "functional"],
    direct_use: false,
    requires_llm_api_keys: false,
    parameters: object(
      { suffix: text("Suffix", "Text the output must end with."), case_sensitive: caseSensitive },
      { required: ["suffix"], additional: false },
    ),
    outputs: SUCCESS_OUTPUTS,
    presets: [{ key: "full-stop", name: "Ends with a full stop", description: "Passes when the output is a finished sentence.", parameters: { suffix: ".", case_sensitive: true } }],
  },
  {
    key: "auto_contains",
    name: "Contains",
    description: "Checks that the output contains a substring.",
    tags: ["classifiers", "functional"],
    direct_use: false,
    requires_llm_api_keys: false,
    parameters: object(
      { substring: text("Substring", "Text the output must contain."), case_sensitive: caseSensitive },
      { required: ["substring"], additional: false },
    ),
    outputs: SUCCESS_OUTPUTS,
    presets: [{ key: "cites-source", name: "Cites a source", description: "Passes when the output names its source.", parameters: { substring: "source:", case_sensitive: false } }],
  },
  {
    key: "auto_contains_any",
    name: "Contains Any",
    description: "Checks that the output contains at least one of several substrings.",
    tags: ["classifiers", "functional"],
    direct_use: false,
    requires_llm_api_keys: false,
    parameters: object(
      { substrings: text("Substrings", "Comma-separated list; at least one must occur in the output."), case_sensitive: caseSensitive },
      { required: ["substrings"], additional: false },
    ),
    outputs: SUCCESS_OUTPUTS,
    presets: [
      {
        key: "refusal",
        name: "Refusal",
        description: "Passes when the output declines to answer.",
        parameters: { substrings: "I can't,I cannot,I'm unable,I am unable,I won't", case_sensitive: false },
      },
    ],
  },
  {
    key: "auto_contains_all",
    name: "Contains All",
    description: "Checks that the output contains every one of several substrings.",
    tags: ["classifiers", "functional"],
    direct_use: false,
    requires_llm_api_keys: false,
    parameters: object(
      { substrings: text("Substrings", "Comma-separated list; all must occur in the output."), case_sensitive: caseSensitive },
      { required: ["substrings"], additional: false },
    ),
    outputs: SUCCESS_OUTPUTS,
    presets: [
      { key: "contact-details", name: "Contact details", description: "Passes when the output gives both an email and a phone number.", parameters: { substrings: "email,phone", case_sensitive: false } },
    ],
  },
  {
    key: "auto_custom_code_run",
    name: "Code Evaluation",
    description: "Runs your JavaScript `evaluate(inputs, output, trace)`; a number is a score (passing at the threshold), a boolean is pass/fail.",
    tags: ["functional"],
    direct_use: false,
    requires_llm_api_keys: false,
    // Open: configurations copied from the reference carry extra keys (e.g. `version`).
    parameters: object(
      {
        code: string({ title: "Evaluation code", default: DEFAULT_CODE, description: "Defines evaluate(inputs, output, trace).", "x-ag-type": "code" }),
        runtime: string({ title: "Runtime", default: "javascript", enum: ["javascript"], description: "Language of the code.", "x-ag-type": "choice", "x-ag-ui-advanced": true }),
        threshold: number({ title: "Threshold", default: 0.5, minimum: 0, maximum: 1, description: "Lowest score that passes.", "x-ag-type": "float", "x-ag-ui-advanced": true }),
        correct_answer_key: correctAnswerKey(),
      },
      { required: ["code"], additional: true },
    ),
    outputs: SCORE_OUTPUTS,
  },
  {
    key: "auto_webhook_test",
    name: "Webhook Test",
    description: "Posts the output and the expected answer to your webhook, which answers with a score from 0 to 1.",
    tags: ["functional"],
    direct_use: false,
    requires_llm_api_keys: false,
    parameters: object(
      {
        webhook_url: text("Webhook URL", "https://your-webhook.example.com", { format: "uri" }),
        correct_answer_key: correctAnswerKey(),
      },
      { required: ["webhook_url"], additional: false },
    ),
    outputs: SCORE_OUTPUTS,
  },
  {
    key: "auto_ai_critique",
    name: "LLM-as-a-judge",
    description: "Asks a model to grade the output with a configurable prompt that sees the inputs, the output and, optionally, the expected answer.",
    tags: ["ai_llm", "functional"],
    direct_use: false,
    requires_llm_api_keys: true,
    recommended: true,
    // Open: configurations copied from the reference carry extra keys (e.g. `response_type`, `version`).
    parameters: object(
      {
        prompt_template: {
          ...MESSAGES_SCHEMA,
          "x-ag-type-ref": "messages",
          title: "Prompt template",
          description: "Judge messages; {{inputs}}, {{outputs}} and testcase columns are available.",
          default: DEFAULT_JUDGE,
        },
        model: { ...MODEL_SCHEMA, "x-ag-type-ref": "model", title: "Model", default: DEFAULT_MODEL, description: "Model that grades.", "x-ag-ui-advanced": true },
        correct_answer_key: correctAnswerKey(),
        threshold: number({ title: "Threshold", default: 0.5, minimum: 0, maximum: 1, description: "Lowest score that passes.", "x-ag-type": "float" }),
        json_schema: object(
          { name: string({ default: "score" }), schema: openObject(), strict: boolean({ default: true }) },
          {
            title: "Feedback format",
            default: JUDGE_SCORE_SCHEMA,
            description: "JSON Schema the judge's answer must follow.",
            "x-ag-type": "llm_response_schema",
            "x-ag-ui-advanced": true,
          },
        ),
      },
      { required: ["prompt_template"], additional: true },
    ),
    outputs: SCORE_OUTPUTS,
    presets: [
      {
        key: "hallucination",
        name: "Hallucination",
        description: "Scores how well every claim is supported by the inputs (1.0: nothing invented).",
        parameters: {
          prompt_template: judgePrompt(
            "You check model outputs for hallucinations. Compare every factual claim in the output with the inputs.\n" +
              "Unsupported or contradicted claims lower the score; invented facts that matter make it 0.0.",
          ),
          model: DEFAULT_MODEL,
          correct_answer_key: "correct_answer",
          threshold: 0.5,
          json_schema: JUDGE_SCORE_SCHEMA,
        },
      },
      {
        key: "relevance",
        name: "Relevance",
        description: "Scores how directly the output addresses the question or task in the inputs.",
        parameters: {
          prompt_template: judgePrompt(
            "You judge relevance. Score how directly the output answers the question or performs the task given in the inputs.\n" +
              "Off-topic or evasive content lowers the score.",
          ),
          model: DEFAULT_MODEL,
          correct_answer_key: "correct_answer",
          threshold: 0.5,
          json_schema: JUDGE_SCORE_SCHEMA,
        },
      },
      {
        key: "conciseness",
        name: "Conciseness",
        description: "Scores how free the output is of padding and repetition.",
        parameters: {
          prompt_template: judgePrompt(
            "You judge conciseness. Score how briefly the output says what is needed.\n" +
              "Repetition, filler and unrequested detail lower the score; missing essentials are not your concern.",
          ),
          model: DEFAULT_MODEL,
          correct_answer_key: "correct_answer",
          threshold: 0.5,
          json_schema: JUDGE_SCORE_SCHEMA,
        },
      },
    ],
  },
]);

/** The parameters an evaluator starts with: each property's schema `default`. */
export function defaultParameters(parameters: JsonSchema): Record<string, unknown> {
  const properties = (parameters.properties ?? {}) as Record<string, JsonSchema>;
  return Object.fromEntries(
    Object.entries(properties).filter(([, p]) => p.default !== undefined).map(([name, p]) => [name, p.default]),
  );
}

function entryOf(def: EvaluatorDefinition): CatalogEntry {
  const parameters = defaultParameters(def.parameters);
  const template: CatalogTemplate = {
    key: def.key,
    name: def.name,
    description: def.description,
    categories: ["builtin", ...def.tags],
    flags: catalogFlags({ is_evaluator: true, is_archived: def.archived ?? false, is_recommended: def.recommended ?? false }),
    data: {
      uri: `agenta:builtin:${def.key}:v0`,
      schemas: { parameters: def.parameters, inputs: EVALUATOR_INPUTS, outputs: def.outputs },
      parameters,
    },
  };
  const required = (def.parameters.required ?? []) as string[];
  const complete = required.every((name) => name in parameters);
  const presets = [
    ...(complete ? [{ key: "default", name: "Default", description: `${def.name} with its default settings.`, parameters }] : []),
    ...(def.presets ?? []),
  ].map((p) => presetOf(template, { key: p.key, name: p.name, description: p.description, data: { parameters: p.parameters } }));
  return { template, presets };
}

export const EVALUATOR_ENTRIES: readonly CatalogEntry[] = deepFreeze(EVALUATORS.map(entryOf));
