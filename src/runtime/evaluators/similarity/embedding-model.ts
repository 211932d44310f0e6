import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { EmbeddingModel } from "ai";
import { invalidParameters } from "../../errors.ts";
import { type ModelTarget, targetFetch } from "../../providers/resolve.ts";

/** The embeddings counterpart of `languageModel`: same key, base URL and SSRF guard for user URLs. */
export function embeddingModel(target: ModelTarget, allowPrivate: boolean): EmbeddingModel {
  const fetch = targetFetch(target, allowPrivate);
  const apiKey = target.apiKey || undefined;
  switch (target.kind) {
    case "openai":
      return createOpenAI({ apiKey, baseURL: target.baseUrl, fetch }).embedding(target.model);
    case "openai-compatible":
      return createOpenAICompatible({ name: target.provider, apiKey, baseURL: target.baseUrl!, fetch }).embeddingModel(target.model);
    case "anthropic":
      throw invalidParameters(`parameters.embedding_model: provider '${target.provider}' offers no embeddings`);
  }
}
