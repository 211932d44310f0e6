import { invalidInputs, invalidParameters } from "../../errors.ts";
import { PROVIDER_TIMEOUT_MS } from "../../providers/complete.ts";
import type { LlmConfig, ResponseFormat } from "../../llm-config.ts";
import { toProviderPrompt } from "../../messages.ts";
import { complete } from "../../providers/complete.ts";
import { languageModel, resolveModelTarget } from "../../providers/resolve.ts";
import type { Evaluator } from "../context.ts";
import { threshold } from "../parameters.ts";
import { readScore } from "../score.ts";
import { renderJudgePrompt } from "./judge-prompt.ts";

/** Near-deterministic grading, as the reference asks of its judge. */
const JUDGE_TEMPERATURE = 0.01;

/**
 * `auto_ai_critique` (LLM-as-a-judge): renders the judge prompt, asks the model, reads a score from
 * its answer (a number, or JSON with `score`) and passes at the threshold.
 */
export const aiCritique: Evaluator = async (context) => {
  const { parameters, request } = context;
  const model = parameters.model;
  if (typeof model !== "string" || model.trim() === "") throw invalidParameters("parameters.model must name a model, e.g. gpt-4o-mini");
  const pass = threshold(parameters);
  const config: LlmConfig = { model: model.trim(), temperature: JUDGE_TEMPERATURE, response_format: responseFormat(parameters) };
  const messages = renderJudgePrompt(context);

  const target = resolveModelTarget(config.model, request.secrets ?? [], request.env ?? process.env);
  const span = context.openSpan(`${target.provider}.chat`, "chat");
  const { model: _model, ...settings } = config;
  span.set({ provider: target.provider, model: target.model, settings, prompt: messages });
  const result = await complete({
    target,
    model: languageModel(target, request.allowPrivateHooks === true),
    prompt: toProviderPrompt(messages, invalidInputs),
    config,
    mode: "completion",
    timeoutMs: request.timeouts?.providerMs ?? PROVIDER_TIMEOUT_MS,
  });
  span.set({ outputs: result.outputs, usage: result.usage, finish_reason: result.finishReason });
  span.end();
  const outputs = readScore(result.outputs, pass, `Judge model '${config.model}'`);
  return { outputs, ...(result.usage && { usage: result.usage }) };
};

/**
 * `response_type` as the reference spells it (text, json_object, json_schema); without it the judge
 * answers in `json_schema` when one is configured (the catalog's default), else in text.
 */
function responseFormat(parameters: Record<string, unknown>): ResponseFormat {
  const schema = parameters.json_schema;
  const type = parameters.response_type ?? (schema !== undefined && schema !== null ? "json_schema" : "text");
  if (type === "text" || type === "json_object") return { type };
  if (type !== "json_schema") throw invalidParameters("parameters.response_type must be one of text, json_object, json_schema");
  const spec = schema as Record<string, unknown> | null | undefined;
  if (typeof spec !== "object" || spec === null || Array.isArray(spec) || typeof spec.schema !== "object" || spec.schema === null || Array.isArray(spec.schema)) {
    throw invalidParameters("parameters.json_schema must be {name, schema, strict} with a JSON Schema object as schema");
  }
  return {
    type: "json_schema",
    json_schema: {
      name: typeof spec.name === "string" && spec.name ? spec.name : "score",
      schema: spec.schema as Record<string, unknown>,
      strict: spec.strict === true,
      ...(typeof spec.description === "string" && { description: spec.description }),
    },
  };
}
