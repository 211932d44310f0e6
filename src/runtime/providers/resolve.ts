import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { invalidParameters, invalidSecrets } from "../errors.ts";
import { providerFetch } from "../net/guarded-request.ts";
import { knownProvider, type ProviderKind, providerForModelName } from "./catalog.ts";

/** A provider key for one call. A provider the catalog does not know is a custom, OpenAI-compatible one. */
export interface ProviderSecret {
  provider: string;
  api_key: string;
  base_url?: string | null;
  /** A custom provider's deployment kind (`custom`, `openai`, …): model ids may read `{provider}/{family}/model`. */
  family?: string;
}

export type Environment = Record<string, string | undefined>;

export interface ModelTarget {
  provider: string;
  model: string;
  kind: ProviderKind;
  apiKey: string;
  baseUrl?: string;
  /** The base URL came from a secret, i.e. from a user: it goes through the SSRF guard. */
  userBaseUrl: boolean;
}

/**
 * `gpt-4o-mini`, `openai/gpt-4o`, `anthropic/claude-…`, `{custom-slug}/model`: which provider, which
 * model name, which key (per-call secrets first, then `{PROVIDER}_API_KEY`), which base URL.
 */
export function resolveModelTarget(modelId: string, secrets: ProviderSecret[], env: Environment): ModelTarget {
  const secretFor = (provider: string) => secrets.find((s) => s.provider.trim().toLowerCase() === provider);
  const slash = modelId.indexOf("/");
  if (slash > 0) {
    const prefix = modelId.slice(0, slash).toLowerCase();
    const secret = secretFor(prefix);
    const rest = modelId.slice(slash + 1);
    const model = secret?.family && rest.startsWith(`${secret.family}/`) ? rest.slice(secret.family.length + 1) : rest;
    if (secret || knownProvider(prefix)) return target(prefix, model, modelId, secret, env);
  }
  const inferred = providerForModelName(modelId);
  if (inferred) return target(inferred, modelId, modelId, secretFor(inferred), env);
  throw invalidParameters(`Cannot tell which provider serves model '${modelId}': prefix it with the provider, e.g. 'openai/${modelId}'`);
}

function target(provider: string, model: string, modelId: string, secret: ProviderSecret | undefined, env: Environment): ModelTarget {
  const known = knownProvider(provider);
  if (!known && !secret?.base_url) throw invalidSecrets(`Provider '${provider}' (model '${modelId}') is not known and its secret has no base URL`);
  const operatorBaseUrl = (known?.baseUrlVariable ? env[known.baseUrlVariable] : undefined) || known?.baseUrl;
  const ownBaseUrl = secret?.base_url && !sameBaseUrl(secret.base_url, operatorBaseUrl) ? secret.base_url : undefined;
  // The server's key is the operator's: it goes only to the address the operator set for it, never to a tenant's.
  if (ownBaseUrl && known && !secret?.api_key) {
    throw invalidSecrets(`The '${provider}' provider secret names its own base URL (${ownBaseUrl}) but no API key: `
      + `add the key for that endpoint to the secret (the server's ${known.keyVariables[0]} is only sent to ${operatorBaseUrl})`);
  }
  const apiKey = secret?.api_key || (ownBaseUrl ? undefined : known?.keyVariables.map((name) => env[name]).find(Boolean));
  if (!apiKey && known) {
    throw invalidSecrets(`No API key for provider '${provider}' (model '${modelId}'): add a '${provider}' provider secret or set ${known.keyVariables[0]}`);
  }
  return {
    provider,
    model,
    kind: known?.kind ?? (secret?.family ? knownProvider(secret.family)?.kind : undefined) ?? "openai-compatible",
    apiKey: apiKey ?? "",
    baseUrl: ownBaseUrl ?? operatorBaseUrl,
    userBaseUrl: Boolean(ownBaseUrl),
  };
}

const sameBaseUrl = (a: string, b: string | undefined) => b !== undefined && a.replace(/\/+$/, "") === b.replace(/\/+$/, "");

/**
 * The model object for a target, made once and kept (a few dozen at most): a provider object is
 * stateless, and making one per call costs more than the call's own work against a fast provider.
 */
export function languageModel(target: ModelTarget, allowPrivate: boolean): LanguageModelV3 {
  const key = JSON.stringify([target.kind, target.provider, target.model, target.apiKey, target.baseUrl ?? null, target.userBaseUrl, allowPrivate]);
  let model = models.get(key);
  if (!model) {
    model = newLanguageModel(target, allowPrivate);
    if (models.size >= MODEL_CACHE_SIZE) models.delete(models.keys().next().value!);
    models.set(key, model);
  }
  return model;
}

const models = new Map<string, LanguageModelV3>();
const MODEL_CACHE_SIZE = 64;

/** What a target's calls go through: guarded for a base URL from a user secret, kept alive for the operator's. */
export function targetFetch(target: ModelTarget, allowPrivate: boolean): typeof fetch {
  const guarded = target.userBaseUrl;
  return providerFetch(guarded ? { allowPrivate, keepAlive: false } : { allowPrivate: true, keepAlive: true });
}

function newLanguageModel(target: ModelTarget, allowPrivate: boolean): LanguageModelV3 {
  const fetch = targetFetch(target, allowPrivate);
  const apiKey = target.apiKey || undefined;
  switch (target.kind) {
    case "openai":
      return createOpenAI({ apiKey, baseURL: target.baseUrl, fetch }).chat(target.model);
    case "anthropic":
      return createAnthropic({ apiKey, baseURL: target.baseUrl, fetch }).languageModel(target.model);
    case "openai-compatible":
      return createOpenAICompatible({
        name: target.provider,
        apiKey,
        baseURL: target.baseUrl!,
        fetch,
        includeUsage: true,
        supportsStructuredOutputs: true,
      }).chatModel(target.model);
  }
}
