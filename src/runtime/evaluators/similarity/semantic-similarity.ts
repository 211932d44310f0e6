import { cosineSimilarity, embedMany } from "ai";
import { upstreamFailed } from "../../errors.ts";
import { PROVIDER_TIMEOUT_MS } from "../../providers/complete.ts";
import { providerFailure } from "../../providers/failure.ts";
import { resolveModelTarget } from "../../providers/resolve.ts";
import { type Evaluator, outputText } from "../context.ts";
import { optionalString, threshold } from "../parameters.ts";
import { embeddingModel } from "./embedding-model.ts";
import { expectedText } from "./expected-text.ts";

export const DEFAULT_EMBEDDING_MODEL = "text-embedding-3-small";

/** `auto_semantic_similarity`: cosine similarity of the two texts' embeddings, passing at the threshold. */
export const semanticSimilarity: Evaluator = async (context) => {
  const { parameters, request } = context;
  const modelId = optionalString(parameters, "embedding_model")?.trim() || DEFAULT_EMBEDDING_MODEL;
  const pass = threshold(parameters);
  const values = [outputText(context), expectedText(context)];
  const target = resolveModelTarget(modelId, request.secrets ?? [], request.env ?? process.env);
  const model = embeddingModel(target, request.allowPrivateHooks === true);
  const span = context.openSpan(`${target.provider}.embed`, "chat");
  span.set({ provider: target.provider, model: target.model, values: values.length });
  const timeoutMs = request.timeouts?.providerMs ?? PROVIDER_TIMEOUT_MS;
  const signal = AbortSignal.timeout(timeoutMs);
  let embeddings: number[][];
  let tokens: number | undefined;
  try {
    const result = await embedMany({ model, values, maxRetries: 0, abortSignal: signal });
    embeddings = result.embeddings;
    tokens = result.usage?.tokens;
  } catch (error) {
    throw providerFailure(error, target.provider, signal.aborted ? timeoutMs : null);
  }
  const [a, b] = embeddings;
  if (!a || !b || a.length !== b.length || a.length === 0) throw upstreamFailed(`Provider '${target.provider}' returned unusable embeddings`);
  const score = cosineSimilarity(a, b);
  const usage = tokens !== undefined ? { prompt_tokens: tokens, completion_tokens: 0, total_tokens: tokens } : undefined;
  span.set({ score, ...(usage && { usage }) });
  span.end();
  return { outputs: { score, success: score >= pass }, ...(usage && { usage }) };
};
