/*
 * The OpenTelemetry GenAI semantic conventions (`gen_ai.*`: what OpenLLMetry, Logfire, PydanticAI and most
 * instrumentations emit now), as the reference's Logfire adapter maps them: request and response meta, usage
 * as incremental tokens (a total added when only prompt and completion are given), the operation as the span
 * type, and `gen_ai.input.messages` / `gen_ai.output.messages` as the prompt and completion (chat shape).
 * Tool spans without other data get their name and arguments as inputs and their result as outputs.
 */

import { chatMessages } from "./gen-ai-messages.ts";
import { parsedJson, type Attributes } from "./mapping.ts";

const EXACT: [string, string][] = [
  ["gen_ai.request.model", "ag.meta.request.model"],
  ["gen_ai.conversation.id", "ag.session.id"],
  ["gen_ai.output.type", "ag.meta.output.type"],
  ["gen_ai.request.max_tokens", "ag.meta.request.max_tokens"],
  ["gen_ai.request.temperature", "ag.meta.request.temperature"],
  ["gen_ai.request.presence_penalty", "ag.meta.request.presence_penalty"],
  ["gen_ai.request.stop_sequences", "ag.meta.request.stop_sequences"],
  ["gen_ai.request.top_p", "ag.meta.request.top_p"],
  ["gen_ai.request.top_k", "ag.meta.request.top_k"],
  ["gen_ai.response.finish_reasons", "ag.meta.response.finish_reasons"],
  ["gen_ai.response.model", "ag.meta.response.model"],
  ["gen_ai.usage.input_tokens", "ag.metrics.unit.tokens.prompt"],
  ["gen_ai.usage.output_tokens", "ag.metrics.unit.tokens.completion"],
  ["gen_ai.usage.total_tokens", "ag.metrics.unit.tokens.total"],
  ["gen_ai.system", "ag.meta.system"],
  ["gen_ai.request.base_url", "ag.meta.request.base_url"],
  ["gen_ai.request.endpoint", "ag.meta.request.endpoint"],
  ["gen_ai.request.headers", "ag.meta.request.headers"],
  ["gen_ai.request.type", "ag.type.node"],
  ["gen_ai.request.streaming", "ag.meta.request.streaming"],
  ["gen_ai.usage.prompt_tokens", "ag.metrics.unit.tokens.prompt"],
  ["gen_ai.usage.completion_tokens", "ag.metrics.unit.tokens.completion"],
  ["gen_ai.tool.name", "ag.meta.tool.name"],
  ["gen_ai.tool.call.id", "ag.meta.tool.call.id"],
  ["gen_ai.tool.call.arguments", "ag.meta.tool.call.arguments"],
  ["gen_ai.tool.call.result", "ag.meta.tool.call.result"],
  ["gen_ai.system_instructions", "ag.meta.system_instructions"],
  ["gen_ai.agent.id", "ag.agent.id"],
  ["gen_ai.agent.description", "ag.meta.agent.description"],
  ["gen_ai.provider.name", "ag.meta.provider.name"],
  ["gen_ai.usage.cache_read.input_tokens", "ag.metrics.unit.tokens.cache_read"],
  ["gen_ai.usage.cache_creation.input_tokens", "ag.metrics.unit.tokens.cache_creation"],
];
const MAP = new Map(EXACT);

/** `gen_ai.operation.name` as the span type; an operation not listed is a task. */
const OPERATION_TYPES: Record<string, string> = {
  chat: "chat", create_agent: "agent", embeddings: "embedding", execute_tool: "tool",
  generate_content: "completion", invoke_agent: "agent", text_completion: "completion",
};

/** The `ag.*` attributes the GenAI semantic conventions stand for. */
export function genAi(attributes: Attributes): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    const to = MAP.get(key);
    if (to) out[to] = value;
    if (key === "gen_ai.operation.name") out["ag.type.node"] = OPERATION_TYPES[String(value)] ?? "task";
  }
  const prompt = out["ag.metrics.unit.tokens.prompt"];
  const completion = out["ag.metrics.unit.tokens.completion"];
  if (typeof prompt === "number" && typeof completion === "number" && prompt && completion
    && !out["ag.metrics.unit.tokens.total"]) {
    out["ag.metrics.unit.tokens.total"] = prompt + completion;
  }
  if (Object.keys(out).length === 0) return out;

  const input = parsedJson(attributes["gen_ai.input.messages"]);
  const output = parsedJson(attributes["gen_ai.output.messages"]);
  if (Array.isArray(input)) out["ag.data.inputs"] = { prompt: chatMessages(input) };
  if (Array.isArray(output)) out["ag.data.outputs"] = { completion: chatMessages(output) };
  const tool = attributes["gen_ai.tool.name"];
  if (tool && !("ag.data.inputs" in out) && !("ag.data.outputs" in out)) {
    const args = attributes["gen_ai.tool.call.arguments"] ?? attributes.tool_arguments;
    const result = attributes["gen_ai.tool.call.result"] ?? attributes.tool_response;
    out["ag.data.inputs"] = args ? { name: tool, arguments: parsedJson(args) } : { name: tool };
    if (result !== undefined && result !== null) out["ag.data.outputs"] = parsedJson(result);
  }
  return out;
}
