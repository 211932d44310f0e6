/*
 * The Vercel AI SDK's telemetry (`ai.*` attributes on `ai.generateText`, `ai.streamText`, `ai.toolCall`… spans),
 * as the reference's VercelAIAdapter maps it: model and settings as request meta, usage (either naming) as
 * incremental tokens, the prompt as inputs and the response text, object or tool result as outputs, the
 * operation as the span type, and the telemetry metadata's user and session. The `gen_ai.*` keys the SDK also
 * writes on inner spans are the GenAI conventions' (gen-ai.ts).
 */

import { compileMapping, parsedJson, type Attributes, type Mapping } from "./mapping.ts";

const OPERATION_TYPES: Record<string, string> = {
  "ai.generateText": "task", "ai.generateText.doGenerate": "task", "ai.streamText": "task",
  "ai.streamText.doStream": "task", "ai.generateObject": "task", "ai.generateObject.doGenerate": "task",
  "ai.streamObject": "task", "ai.streamObject.doStream": "task", "ai.toolCall": "tool", "ai.embed": "embedding",
  "ai.embed.doEmbed": "embedding", "ai.embedMany": "embedding", "ai.embedMany.doEmbed": "embedding",
};

const json = (to: string) => (value: unknown): [string, unknown] => [to, parsedJson(value)];
const as = (to: string) => (value: unknown): [string, unknown] => [to, value];

const VERCEL_AI: Mapping = {
  exact: [
    ["ai.model.id", "ag.meta.request.model"],
    ["ai.model.provider", "ag.meta.system"],
    ["ai.response.model", "ag.meta.response.model"],
    ["ai.response.id", "ag.meta.response.id"],
    ["ai.response.timestamp", "ag.meta.response.timestamp"],
    ["ai.settings.temperature", "ag.meta.request.temperature"],
    ["ai.settings.topP", "ag.meta.request.top_p"],
    ["ai.settings.topK", "ag.meta.request.top_k"],
    ["ai.settings.maxOutputTokens", "ag.meta.request.max_tokens"],
    ["ai.settings.frequencyPenalty", "ag.meta.request.frequency_penalty"],
    ["ai.settings.presencePenalty", "ag.meta.request.presence_penalty"],
    ["ai.settings.stopSequences", "ag.meta.request.stop_sequences"],
    ["ai.settings.seed", "ag.meta.request.seed"],
    ["ai.settings.maxRetries", "ag.meta.request.max_retries"],
    ["ai.usage.promptTokens", "ag.metrics.unit.tokens.prompt"],
    ["ai.usage.completionTokens", "ag.metrics.unit.tokens.completion"],
    ["ai.usage.inputTokens", "ag.metrics.unit.tokens.prompt"],
    ["ai.usage.outputTokens", "ag.metrics.unit.tokens.completion"],
    ["ai.usage.totalTokens", "ag.metrics.unit.tokens.total"],
    ["ai.usage.reasoningTokens", "ag.metrics.unit.tokens.reasoning"],
    ["ai.usage.cachedInputTokens", "ag.metrics.unit.tokens.cached"],
    ["ai.response.text", "ag.data.outputs"],
    ["ai.response.reasoning", "ag.data.outputs.reasoning"],
  ],
  dynamic: [
    ["ai.prompt", json("ag.data.inputs")],
    ["ai.prompt.messages", json("ag.data.inputs.prompt")],
    ["ai.response.object", json("ag.data.outputs")],
    ["ai.response.toolCalls", json("ag.data.outputs.toolCalls")],
    ["ai.toolCall.name", as("ag.data.inputs.name")],
    ["ai.toolCall.args", json("ag.data.inputs.args")],
    ["ai.toolCall.result", json("ag.data.outputs")],
    ["ai.response.finishReason", (value) => ["ag.meta.response.finish_reasons", [value]]],
    ["ai.operationId", (value) => (value ? ["ag.type.node", OPERATION_TYPES[String(value)] ?? "task"] : null)],
    ["ai.telemetry.metadata.userId", as("ag.user.id")],
    ["ai.telemetry.metadata.sessionId", as("ag.session.id")],
  ],
};

/** The `ag.*` attributes the Vercel AI SDK's keys stand for. */
export const vercelAi: (attributes: Attributes) => Attributes = compileMapping(VERCEL_AI);
