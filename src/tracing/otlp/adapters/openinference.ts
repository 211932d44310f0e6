/*
 * OpenInference (Arize Phoenix's instrumentations), as the reference's OpenInferenceAdapter maps it: the span
 * kind as the span type, `input.value` / `output.value` as inputs and outputs (replaced by the structured
 * messages on chat spans), `llm.input_messages.N.message.*` as the prompt and `llm.output_messages` as the
 * completion (tool calls in the OpenAI shape), token counts as incremental tokens, tool definitions parsed.
 */

import { compileMapping, type Attributes, type Mapping } from "./mapping.ts";

const SPAN_KINDS: Record<string, string> = {
  CHAIN: "chain", RETRIEVER: "query", RERANKER: "rerank", LLM: "chat", EMBEDDING: "embedding", AGENT: "agent",
  TOOL: "tool", GUARDRAIL: "task", EVALUATOR: "task",
};

const OPENINFERENCE: Mapping = {
  exact: [
    ["input.value", "ag.data.inputs"],
    ["output.value", "ag.data.outputs"],
    ["input.mime_type", "ag.meta.input.mime_type"],
    ["output.mime_type", "ag.meta.output.mime_type"],
    ["llm.model_name", "ag.meta.response.model"],
    ["llm.invocation_parameters", "ag.meta.request"],
    ["llm.provider", "ag.meta.provider"],
    ["llm.system", "ag.meta.system"],
    ["llm.function_call", "ag.data.outputs.function_call"],
    ["embedding.model_name", "ag.meta.request.model"],
    ["embedding.text", "ag.data.inputs.embedding.text"],
    ["embedding.vector", "ag.data.outputs.embedding.vector"],
    ["exception.escaped", "ag.exception.escaped"],
    ["exception.message", "ag.exception.message"],
    ["exception.stacktrace", "ag.exception.stacktrace"],
    ["exception.type", "ag.exception.type"],
    ["image.url", "ag.data.multimedia.image.url"],
    ["audio.url", "ag.data.multimedia.audio.url"],
    ["audio.mime_type", "ag.meta.multimedia.audio.mime_type"],
    ["audio.transcript", "ag.data.multimedia.audio.transcript"],
    ["llm.prompt_template.template", "ag.meta.prompt_template.template"],
    ["llm.prompt_template.variables", "ag.meta.prompt_template.variables"],
    ["llm.prompt_template.version", "ag.meta.prompt_template.version"],
    ["reranker.model_name", "ag.meta.reranker.model_name"],
    ["reranker.query", "ag.meta.reranker.query"],
    ["reranker.top_k", "ag.meta.reranker.top_k"],
    ["session.id", "ag.session.id"],
    ["user.id", "ag.user.id"],
    ["tag.tags", "ag.meta.tags"],
    ["tool.description", "ag.meta.tool.description"],
    ["tool.json_schema", "ag.meta.tool.json_schema"],
    ["tool.name", "ag.meta.tool.name"],
    ["tool.id", "ag.meta.tool.id"],
    ["tool.parameters", "ag.meta.tool.parameters"],
    ["tool_call.function.arguments", "ag.data.inputs.tool_call.function.arguments"],
    ["tool_call.function.name", "ag.meta.tool_call.function.name"],
    ["tool_call.id", "ag.meta.tool_call.id"],
    ["document.content", "ag.data.internals.document.content"],
    ["document.id", "ag.data.internals.document.id"],
    ["document.metadata", "ag.data.internals.document.metadata"],
    ["document.score", "ag.data.internals.document.score"],
    ["metadata", "ag.meta.metadata"],
  ],
  prefix: [
    ["llm.token_count", "ag.metrics.unit.tokens"],
    ["llm.input_messages", "ag.data.inputs.prompt"],
    ["llm.output_messages", "ag.data.outputs.completion"],
    ["embedding.embeddings", "ag.data.inputs.embeddings"],
    ["reranker.input_documents", "ag.data.inputs.reranker.input_documents"],
    ["reranker.output_documents", "ag.data.outputs.reranker.output_documents"],
    ["retrieval.documents", "ag.data.outputs.retrieval.documents"],
    ["message.contents", "ag.data.inputs.message_contents"],
  ],
};

const mapped = compileMapping(OPENINFERENCE);
const TOOL_SCHEMA = /^llm\.tools\.(\d+)\.tool\.json_schema$/;
const MESSAGES = /^ag\.data\.(?:inputs\.prompt|outputs\.completion)\./;
const MESSAGE = /^(ag\.data\.(?:inputs\.prompt|outputs\.completion)\.\d+)\.message\./;
const TOOL_CALL = /(\.tool_calls\.\d+)\.tool_call\./;

/** The `ag.*` attributes OpenInference's keys stand for. */
export function openInference(attributes: Attributes): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    const index = TOOL_SCHEMA.exec(key)?.[1];
    if (index === undefined) continue;
    const tool = typeof value === "string" ? parse(value) : undefined;
    if (typeof tool === "object" && tool !== null) out[`ag.data.inputs.tools.${index}`] = tool;
    else out[`ag.data.inputs.tools.${index}.tool.json_schema`] = value;
  }
  const rest = Object.fromEntries(Object.entries(attributes).filter(([key]) => !key.startsWith("llm.tools.")));
  for (const [key, value] of Object.entries(mapped(rest))) {
    // Messages lose their `.message.` level and tool calls their `.tool_call.` one: the OpenAI chat shape.
    out[MESSAGES.test(key) ? key.replace(MESSAGE, "$1.").replace(TOOL_CALL, "$1.") : key] = value;
  }
  const kind = attributes["openinference.span.kind"];
  const type = typeof kind === "string" ? SPAN_KINDS[kind.toUpperCase()] : undefined;
  if (type) out["ag.type.node"] = type;
  if (type === "chat" || type === "completion") {
    const keys = Object.keys(out);
    if (keys.some((k) => k.startsWith("ag.data.inputs.prompt."))) delete out["ag.data.inputs"];
    if (keys.some((k) => k.startsWith("ag.data.outputs.completion."))) delete out["ag.data.outputs"];
  }
  return out;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
