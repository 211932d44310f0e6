import type {
  JSONSchema7, LanguageModelV3CallOptions, LanguageModelV3FunctionTool, LanguageModelV3ToolChoice,
  SharedV3ProviderOptions,
} from "@ai-sdk/provider";
import type { LlmConfig, ResponseFormat, ToolChoice } from "../llm-config.ts";
import type { ModelTarget } from "./resolve.ts";

/** `llm_config` in the AI SDK provider interface's terms: sampling settings, tools, output format, provider options. */
export function callOptions(config: LlmConfig, target: ModelTarget): Omit<LanguageModelV3CallOptions, "prompt"> {
  const tools = toolList(config);
  return {
    temperature: config.temperature,
    maxOutputTokens: config.max_tokens,
    topP: config.top_p,
    frequencyPenalty: config.frequency_penalty,
    presencePenalty: config.presence_penalty,
    tools,
    toolChoice: tools ? toolChoice(config.tool_choice) : undefined,
    responseFormat: responseFormat(config.response_format),
    providerOptions: providerOptions(config, target),
  };
}

/** Tools without an implementation: the model's tool calls are returned to the caller, never run here. */
function toolList(config: LlmConfig): LanguageModelV3FunctionTool[] | undefined {
  if (!config.tools?.length) return undefined;
  return config.tools.map(({ function: fn }) => ({
    type: "function",
    name: fn.name,
    description: fn.description,
    inputSchema: (fn.parameters ?? { type: "object", properties: {} }) as JSONSchema7,
    ...(fn.strict !== undefined && { strict: fn.strict }),
  }));
}

function toolChoice(choice: ToolChoice | undefined): LanguageModelV3ToolChoice {
  if (choice === undefined) return { type: "auto" };
  if (typeof choice === "string") return { type: choice };
  return { type: "tool", toolName: choice.function.name };
}

function responseFormat(format: ResponseFormat | undefined): LanguageModelV3CallOptions["responseFormat"] {
  if (format?.type === "json_object") return { type: "json" };
  if (format?.type === "json_schema") {
    const { name, schema, description } = format.json_schema;
    return { type: "json", schema: schema as JSONSchema7, name, description };
  }
  return undefined;
}

function providerOptions(config: LlmConfig, target: ModelTarget): SharedV3ProviderOptions | undefined {
  const effort = config.reasoning_effort;
  if (target.kind === "anthropic") {
    return effort === "low" || effort === "medium" || effort === "high" ? { anthropic: { effort } } : undefined;
  }
  const options: SharedV3ProviderOptions[string] = {};
  if (effort) options.reasoningEffort = effort;
  if (config.response_format?.type === "json_schema") options.strictJsonSchema = config.response_format.json_schema.strict === true;
  return { [target.kind === "openai" ? "openai" : "openaiCompatible"]: options };
}

export function isJsonFormat(config: LlmConfig): boolean {
  return config.response_format?.type === "json_object" || config.response_format?.type === "json_schema";
}
