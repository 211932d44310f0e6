import { invalidParameters } from "./errors.ts";

/** `prompt.llm_config`, in the OpenAI vocabulary the reference uses. */
export interface FunctionTool {
  type: "function";
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}

export type ToolChoice = "auto" | "none" | "required" | { type: "function"; function: { name: string } };

export interface JsonSchemaFormat {
  name: string;
  schema: Record<string, unknown>;
  strict?: boolean;
  description?: string;
}

export type ResponseFormat = { type: "text" } | { type: "json_object" } | { type: "json_schema"; json_schema: JsonSchemaFormat };

export interface LlmConfig {
  model: string;
  temperature?: number;
  max_tokens?: number;
  top_p?: number;
  frequency_penalty?: number;
  presence_penalty?: number;
  response_format?: ResponseFormat;
  tools?: FunctionTool[];
  tool_choice?: ToolChoice;
  reasoning_effort?: "none" | "minimal" | "low" | "medium" | "high";
  max_retries?: number;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const REASONING_EFFORTS = ["none", "minimal", "low", "medium", "high"];

function number(raw: Record<string, unknown>, path: string, min: number, max: number, integer = false): number | undefined {
  const value = raw[path.split(".").at(-1)!];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || Number.isNaN(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
    throw invalidParameters(`llm_config.${path} must be ${integer ? "an integer" : "a number"} between ${min} and ${max}`);
  }
  return value;
}

function responseFormat(value: unknown): ResponseFormat | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw invalidParameters("llm_config.response_format must be an object");
  if (value.type === "text" || value.type === "json_object") return { type: value.type };
  if (value.type !== "json_schema") throw invalidParameters("llm_config.response_format.type must be text, json_object or json_schema");
  // The OpenAI form nests the schema under `json_schema`; a flat form is accepted too.
  const spec = isObject(value.json_schema) ? value.json_schema : value;
  if (!isObject(spec.schema)) throw invalidParameters("llm_config.response_format.json_schema.schema must be a JSON Schema object");
  return {
    type: "json_schema",
    json_schema: {
      name: typeof spec.name === "string" && spec.name ? spec.name : "response",
      schema: spec.schema,
      strict: spec.strict === true,
      description: typeof spec.description === "string" ? spec.description : undefined,
    },
  };
}

function tools(value: unknown): FunctionTool[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw invalidParameters("llm_config.tools must be a list");
  return value.map((tool, i) => {
    if (!isObject(tool) || tool.type !== "function" || !isObject(tool.function) || typeof tool.function.name !== "string") {
      throw invalidParameters(`llm_config.tools[${i}] must be {type: "function", function: {name, description?, parameters?}}`);
    }
    return tool as unknown as FunctionTool;
  });
}

function toolChoice(value: unknown): ToolChoice | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === "auto" || value === "none" || value === "required") return value;
  if (isObject(value) && value.type === "function" && isObject(value.function) && typeof value.function.name === "string") {
    return { type: "function", function: { name: value.function.name } };
  }
  throw invalidParameters('llm_config.tool_choice must be "auto", "none", "required" or {type: "function", function: {name}}');
}

export function parseLlmConfig(raw: unknown): LlmConfig {
  if (!isObject(raw)) throw invalidParameters("parameters.prompt.llm_config must be an object");
  if (typeof raw.model !== "string" || raw.model.trim() === "") throw invalidParameters("llm_config.model is required");
  const effort = raw.reasoning_effort;
  if (effort !== undefined && effort !== null && !REASONING_EFFORTS.includes(effort as string)) {
    throw invalidParameters(`llm_config.reasoning_effort must be one of ${REASONING_EFFORTS.join(", ")}`);
  }
  const retry = isObject(raw.retry_config) ? raw.retry_config : {};
  const config: LlmConfig = {
    model: raw.model.trim(),
    temperature: number(raw, "temperature", 0, 2),
    max_tokens: number(raw, "max_tokens", 1, Number.MAX_SAFE_INTEGER, true),
    top_p: number(raw, "top_p", 0, 1),
    frequency_penalty: number(raw, "frequency_penalty", -2, 2),
    presence_penalty: number(raw, "presence_penalty", -2, 2),
    response_format: responseFormat(raw.response_format),
    reasoning_effort: (effort ?? undefined) as LlmConfig["reasoning_effort"],
    max_retries: number(retry, "retry_config.max_retries", 0, 5, true),
  };
  const toolList = tools(raw.tools);
  // As in the reference: tools only when there are some, tool_choice only alongside tools.
  if (toolList && toolList.length > 0) {
    config.tools = toolList;
    config.tool_choice = toolChoice(raw.tool_choice);
  }
  return config;
}
