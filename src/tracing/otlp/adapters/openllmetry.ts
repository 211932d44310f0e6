/*
 * OpenLLMetry (Traceloop): `traceloop.*` entity spans, `llm.*` request attributes and the indexed
 * `gen_ai.prompt.N.*` / `gen_ai.completion.N.*` messages, as the reference's OpenLLMmetryAdapter maps them. The
 * `gen_ai.*` request, response and usage keys are the GenAI semantic conventions (gen-ai.ts).
 */

import { compileMapping, type Mapping } from "./mapping.ts";

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** `{"inputs": …}` (JSON text or an object) as the `inputs` it holds; text that is not JSON gives nothing. */
const entity = (field: string, to: string) => (value: unknown): [string, unknown] | null => {
  const object = typeof value === "string" ? JSON.parse(value) : value;
  return isObject(object) ? [to, object[field]] : null;
};

const OPENLLMETRY: Mapping = {
  exact: [
    ["llm.headers", "ag.meta.request.headers"],
    ["llm.request.type", "ag.type.node"],
    ["llm.top_k", "ag.meta.request.top_k"],
    ["llm.is_streaming", "ag.meta.request.streaming"],
    ["llm.usage.total_tokens", "ag.metrics.unit.tokens.total"],
    ["gen_ai.openai.api_base", "ag.meta.request.base_url"],
    ["db.system", "ag.meta.system"],
    ["db.vector.query.top_k", "ag.meta.request.top_k"],
    ["pinecone.query.top_k", "ag.meta.request.top_k"],
    ["traceloop.span.kind", "ag.type.node"],
    ["traceloop.entity.name", "ag.node.name"],
  ],
  prefix: [
    ["gen_ai.prompt", "ag.data.inputs.prompt"],
    ["gen_ai.completion", "ag.data.outputs.completion"],
    ["llm.request.functions", "ag.data.inputs.functions"],
    ["llm.request.tools", "ag.data.inputs.tools"],
  ],
  dynamic: [
    ["traceloop.entity.input", entity("inputs", "ag.data.inputs")],
    ["traceloop.entity.output", entity("outputs", "ag.data.outputs")],
  ],
};

/** The `ag.*` attributes OpenLLMetry's keys stand for. */
export const openLlmetry = compileMapping(OPENLLMETRY);
