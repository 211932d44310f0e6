import { unprocessable } from "../errors.ts";

/*
 * What a client sends to /secrets/, in either shape, as one stored form. The reference's shape is
 * `{header: {name, description}, secret: {kind, data}}` with the key inside `data.provider.key`; the
 * older one is `{secret: {provider, api_key, slug?, name?, base_url?}}`.
 */

export type SecretKind = "provider_key" | "custom_provider";

/** The reference's standard providers (its StandardProviderKind); `mistralai` is stored as `mistral`. */
const STANDARD = new Set([
  "openai", "cohere", "anyscale", "deepinfra", "alephalpha", "groq", "minimax", "mistral", "anthropic", "perplexityai",
  "together_ai", "openrouter", "gemini",
]);
/** Custom providers may also be any of these deployments (its CustomProviderKind). */
const CUSTOM = new Set([...STANDARD, "custom", "azure", "bedrock", "sagemaker", "vertex_ai"]);
const SPELLING: Record<string, string> = { mistralai: "mistral", togetherai: "together_ai" };

/** Shown instead of a stored key; sent back unchanged in an update, it keeps the stored key. */
export const MASKED_KEY = "********";

export interface SecretInput {
  kind: SecretKind;
  slug: string | null;
  name: string | null;
  description: string | null;
  /** `data` without the key. */
  data: Record<string, any>;
  /** The key, or null when there is none (a custom provider may have none) or it is kept as stored. */
  key: string | null;
  /** The provider family (provider_key) or deployment kind (custom_provider). */
  provider: string;
  baseUrl: string | null;
}

type Body = Record<string, any>;

const isObject = (v: unknown): v is Record<string, any> => v !== null && typeof v === "object" && !Array.isArray(v);
const fail = (loc: string[], msg: string) => unprocessable([{ loc: ["body", ...loc], msg, type: "value_error" }]);

function httpUrl(value: unknown, loc: string[]): string | null {
  if (value == null || value === "") return null;
  let url: URL | null = null;
  try {
    url = typeof value === "string" ? new URL(value) : null;
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw fail(loc, "Input should be an http(s) URL");
  }
  return String(value);
}

function keyOf(value: unknown, loc: string[], required: boolean): string | null {
  if (value == null || value === "") {
    if (required) throw fail(loc, "Field required");
    return null;
  }
  if (typeof value !== "string") throw fail(loc, "Input should be a valid string");
  return value === MASKED_KEY ? null : value;
}

function models(value: unknown, loc: string[], required: boolean): { slug: string; extras?: object }[] | undefined {
  if (value == null) {
    if (required) throw fail(loc, "Field required");
    return undefined;
  }
  if (!Array.isArray(value) || value.some((m) => !isObject(m) || typeof m.slug !== "string" || m.slug === "")) {
    throw fail(loc, "Input should be a list of {slug, extras?}");
  }
  return value.map((m) => ({ slug: m.slug, ...(isObject(m.extras) ? { extras: m.extras } : {}) }));
}

/** The reference's `secret: {kind, data}` with `header`; a custom provider's `provider_slug` is its header name. */
function vaultSecret(secret: Body, header: Body | null, slug: string | null): SecretInput {
  const kind = secret.kind;
  const data = secret.data;
  if (kind !== "provider_key" && kind !== "custom_provider") {
    throw fail(["secret", "kind"], "This server stores secrets of kind 'provider_key' or 'custom_provider'");
  }
  if (!isObject(data)) throw fail(["secret", "data"], "Field required");
  const family = typeof data.kind === "string" ? SPELLING[data.kind] ?? data.kind : undefined;
  const provider = isObject(data.provider) ? data.provider : null;
  if (!provider) throw fail(["secret", "data", "provider"], "Field required");
  const name = typeof header?.name === "string" && header.name.trim() ? header.name : null;
  const description = typeof header?.description === "string" ? header.description : null;
  const harnesses = Array.isArray(data.harnesses)
    ? { harnesses: data.harnesses.filter((h: unknown) => typeof h === "string") } : {};
  if (kind === "provider_key") {
    if (!family || !STANDARD.has(family)) {
      throw fail(["secret", "data", "kind"], `Input should be one of ${[...STANDARD].join(", ")}`);
    }
    const key = keyOf(provider.key, ["secret", "data", "provider", "key"], true);
    const listed = models(data.models, ["secret", "data", "models"], false);
    return {
      kind, slug, name, description, key, provider: family, baseUrl: null,
      data: { kind: family, provider: {}, ...(listed ? { models: listed } : {}), ...harnesses },
    };
  }
  if (!family || !CUSTOM.has(family)) {
    throw fail(["secret", "data", "kind"], `Input should be one of ${[...CUSTOM].join(", ")}`);
  }
  if (!name) throw fail(["header", "name"], "A custom provider is addressed by its name: header.name is required");
  const url = httpUrl(provider.url, ["secret", "data", "provider", "url"]);
  const settings = {
    ...(url ? { url } : {}),
    ...(typeof provider.version === "string" ? { version: provider.version } : {}),
    ...(isObject(provider.extras) ? { extras: provider.extras } : {}),
  };
  return {
    kind, slug, name, description, provider: family, baseUrl: url,
    key: keyOf(provider.key, ["secret", "data", "provider", "key"], false),
    data: {
      kind: family, provider: settings, models: models(data.models, ["secret", "data", "models"], true),
      ...harnesses, provider_slug: name,
    },
  };
}

/** The older `{provider, api_key, slug?, name?, base_url?}`; a base URL makes it a custom (OpenAI-compatible) one. */
function legacySecret(secret: Body): SecretInput {
  if (typeof secret.provider !== "string" || secret.provider === "") {
    throw fail(["secret", "provider"], "Field required");
  }
  const key = keyOf(secret.api_key, ["secret", "api_key"], true);
  const slug = typeof secret.slug === "string" && secret.slug ? secret.slug : secret.provider;
  const name = typeof secret.name === "string" ? secret.name : null;
  const baseUrl = httpUrl(secret.base_url, ["secret", "base_url"]);
  if (!baseUrl) {
    return {
      kind: "provider_key", slug, name, description: null, key, provider: secret.provider, baseUrl,
      data: { kind: secret.provider, provider: {} },
    };
  }
  return {
    kind: "custom_provider", slug, name: name ?? slug, description: null, key, provider: secret.provider, baseUrl,
    data: { kind: "custom", provider: { url: baseUrl }, models: [], provider_slug: slug },
  };
}

/** A create body in either shape, checked as the reference checks it (422 naming the field). */
export function secretInput(body: Body): SecretInput {
  const secret = body.secret;
  if (!isObject(secret)) throw fail(["secret"], "Field required");
  const slug = typeof body.slug === "string" && body.slug ? body.slug : null;
  if (secret.kind === undefined && secret.data === undefined) return legacySecret(secret);
  return vaultSecret(secret, isObject(body.header) ? body.header : null, slug);
}
