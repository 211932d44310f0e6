import { type JSONValue, jsonSchema, Output, tool, type ToolSet } from "ai";
import type { LlmConfig, ResponseFormat, ToolChoice } from "../llm-config.ts";
import type { ModelTarget } from "./resolve.ts";

/** `llm_config` in the AI SDK's vocabulary: sampling settings, tools, output format, provider options. */
export function callOptions(config: LlmConfig, target: ModelTarget) {
  return {
    temperature: config.temperature,
    maxOutputTokens: config.max_tokens,
    topP: config.top_p,
    frequencyPenalty: config.frequency_penalty,
    presencePenalty: config.presence_penalty,
    tools: toolSet(config),
    toolChoice: toolChoice(config.tool_choice),
    output: outputFormat(config.response_format),
    providerOptions: providerOptions(config, target),
    maxRetries: config.max_retries ?? 0,
  };
}

/** Tools without `execute`: the model's tool calls are returned to the caller, never run here. */
function toolSet(config: LlmConfig): ToolSet | undefined {
  if (!config.tools) return undefined;
  return Object.fromEntries(config.tools.map(({ function: fn }) => [
    fn.name,
    tool({
      description: fn.description,
      inputSchema: jsonSchema(fn.parameters ?? { type: "object", properties: {} }),
      strict: fn.strict,
    }),
  ]));
}

function toolChoice(choice: ToolChoice | undefined) {
  if (choice === undefined || typeof choice === "string") return choice;
  return { type: "tool" as const, toolName: choice.function.name };
}

function outputFormat(format: ResponseFormat | undefined) {
  if (format?.type === "json_object") return Output.json();
  if (format?.type === "json_schema") {
    const { name, schema, description } = format.json_schema;
    return Output.object({ schema: jsonSchema(schema), name, description });
  }
  return undefined;
}

function providerOptions(config: LlmConfig, target: ModelTarget): Record<string, Record<string, JSONValue>> | undefined {
  const effort = config.reasoning_effort;
  if (target.kind === "anthropic") {
    return effort === "low" || effort === "medium" || effort === "high" ? { anthropic: { effort } } : undefined;
  }
  const options: Record<string, JSONValue> = {};
  if (effort) options.reasoningEffort = effort;
  if (config.response_format?.type === "json_schema") options.strictJsonSchema = config.response_format.json_schema.strict === true;
  return { [target.kind === "openai" ? "openai" : "openaiCompatible"]: options };
}

export function isJsonFormat(config: LlmConfig): boolean {
  return config.response_format?.type === "json_object" || config.response_format?.type === "json_schema";
}
