import { deepFreeze, type CatalogType, type JsonSchema } from "./entry.ts";
import { array, boolean, integer, nullable, number, object, openObject, string } from "./json-schema.ts";
import { DEFAULT_MODEL, MODEL_CHOICES } from "./models.ts";

/*
 * Shared JSON Schema building blocks. Template schemas point at them with `x-ag-type-ref: <key>`;
 * each block is also inlined where a template needs it, so a template's schema stands alone.
 */

export const MESSAGE_ROLES = ["developer", "system", "user", "assistant", "tool", "function"];
export const TEMPLATE_FORMATS = ["curly", "fstring", "jinja2", "mustache"];

const contentPart: JsonSchema = {
  oneOf: [
    object({ type: { const: "text" }, text: string() }, { required: ["type", "text"] }),
    object(
      { type: { const: "image_url" }, image_url: object({ url: string(), detail: string({ enum: ["auto", "low", "high"] }) }, { required: ["url"] }) },
      { required: ["type", "image_url"] },
    ),
    object(
      { type: { const: "file" }, file: object({ file_id: string(), file_data: string(), filename: string(), format: string() }) },
      { required: ["type", "file"] },
    ),
  ],
};

const toolCall = object(
  {
    id: string(),
    type: { const: "function" },
    function: object({ name: string(), arguments: string({ description: "Arguments as a JSON string." }) }, { required: ["name"] }),
  },
  { required: ["id", "type", "function"] },
);

export const MESSAGE_SCHEMA: JsonSchema = object(
  {
    role: string({ enum: MESSAGE_ROLES }),
    content: { anyOf: [string(), array(contentPart), { type: "null" }] },
    name: string(),
    tool_calls: array(toolCall),
    tool_call_id: string(),
  },
  { required: ["role"], "x-ag-type": "message", description: "A chat message." },
);

export const MESSAGES_SCHEMA: JsonSchema = array(MESSAGE_SCHEMA, { "x-ag-type": "messages", description: "Ordered list of chat messages." });

export const MODEL_SCHEMA: JsonSchema = string({
  "x-ag-type": "grouped_choice",
  choices: MODEL_CHOICES,
  default: DEFAULT_MODEL,
  description: "ID of the model to use.",
});

export const TOOL_SCHEMA: JsonSchema = object(
  {
    type: { const: "function" },
    function: object(
      {
        name: string({ pattern: "^[a-zA-Z0-9_-]{1,64}$" }),
        description: string(),
        parameters: openObject({ description: "JSON Schema of the function's arguments." }),
        strict: nullable(boolean()),
      },
      { required: ["name"] },
    ),
  },
  { required: ["type", "function"], "x-ag-type": "tool", description: "A function the model may call." },
);

export const TOOLS_SCHEMA: JsonSchema = array(TOOL_SCHEMA, { "x-ag-type": "tools", description: "Functions the model may call." });

export const TOOL_CHOICE_SCHEMA: JsonSchema = {
  "x-ag-type": "tool-choice",
  description: "Whether and which tool the model must call (only sent with tools).",
  oneOf: [
    string({ enum: ["none", "auto", "required"] }),
    object({ type: { const: "function" }, function: object({ name: string() }, { required: ["name"] }) }, { required: ["type", "function"] }),
  ],
};

export const RESPONSE_FORMAT_SCHEMA: JsonSchema = {
  "x-ag-type": "response-format",
  description: "Shape of the model's answer: free text, any JSON object, or JSON matching a schema.",
  oneOf: [
    object({ type: { const: "text" } }, { required: ["type"], additional: false }),
    object({ type: { const: "json_object" } }, { required: ["type"], additional: false }),
    object(
      {
        type: { const: "json_schema" },
        json_schema: object(
          { name: string(), description: string(), schema: openObject(), strict: nullable(boolean()) },
          { required: ["name"] },
        ),
      },
      { required: ["type", "json_schema"], additional: false },
    ),
  ],
};

export const LLM_CONFIG_SCHEMA: JsonSchema = object(
  {
    model: MODEL_SCHEMA,
    temperature: number({ minimum: 0, maximum: 2 }),
    max_tokens: integer({ minimum: -1, description: "Upper bound on generated tokens (-1: provider default)." }),
    top_p: number({ minimum: 0, maximum: 1 }),
    frequency_penalty: number({ minimum: -2, maximum: 2 }),
    presence_penalty: number({ minimum: -2, maximum: 2 }),
    reasoning_effort: string({ enum: ["none", "low", "medium", "high"], "x-ag-type": "choice" }),
    response_format: RESPONSE_FORMAT_SCHEMA,
    tools: TOOLS_SCHEMA,
    tool_choice: TOOL_CHOICE_SCHEMA,
    stream: boolean(),
  },
  { required: ["model"], "x-ag-type": "llm-config", description: "Model and sampling settings of a prompt." },
);

export const PROMPT_TEMPLATE_SCHEMA: JsonSchema = object(
  {
    messages: MESSAGES_SCHEMA,
    template_format: string({ enum: TEMPLATE_FORMATS, default: "curly" }),
    input_keys: nullable(array(string(), { description: "Variables the prompt expects; checked against the inputs when set." })),
    llm_config: LLM_CONFIG_SCHEMA,
  },
  { required: ["messages"], "x-ag-type": "prompt-template", description: "A prompt: messages with variables, and the model settings to run them with." },
);

export const RESPONSE_SCHEMA: JsonSchema = object(
  {
    stream: boolean({ default: false }),
    format: string({ enum: ["messages", "message", "text", "json"], default: "messages" }),
    schema: openObject({ description: "JSON Schema of the answer when format is json." }),
  },
  { additional: false, "x-ag-type": "response", description: "How a workflow shapes its answer." },
);

export const CATALOG_TYPES: readonly CatalogType[] = deepFreeze([
  { key: "message", name: "Message", description: "A chat message with a role, content and optional tool calls.", json_schema: MESSAGE_SCHEMA },
  { key: "messages", name: "Messages", description: "An ordered list of chat messages.", json_schema: MESSAGES_SCHEMA },
  { key: "model", name: "Model", description: "A model id, offered grouped by provider.", json_schema: MODEL_SCHEMA },
  { key: "prompt-template", name: "Prompt template", description: "Messages with variables plus model settings.", json_schema: PROMPT_TEMPLATE_SCHEMA },
  { key: "llm-config", name: "LLM config", description: "Model and sampling settings.", json_schema: LLM_CONFIG_SCHEMA },
  { key: "tools", name: "Tools", description: "Functions the model may call.", json_schema: TOOLS_SCHEMA },
  { key: "tool", name: "Tool", description: "One function the model may call.", json_schema: TOOL_SCHEMA },
  { key: "tool-choice", name: "Tool choice", description: "Whether and which tool the model must call.", json_schema: TOOL_CHOICE_SCHEMA },
  { key: "response-format", name: "Response format", description: "Text, JSON object or JSON Schema output.", json_schema: RESPONSE_FORMAT_SCHEMA },
  { key: "response", name: "Response", description: "How a workflow shapes its answer.", json_schema: RESPONSE_SCHEMA },
]);
