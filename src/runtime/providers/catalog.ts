/**
 * The providers the runtime knows by name. OpenAI and Anthropic have their own AI SDK packages; the
 * others expose OpenAI-compatible endpoints. Model ids are `{provider}/{model}` or a bare model name
 * recognised by its pattern (`gpt-4o-mini`, `claude-…`).
 */
export type ProviderKind = "openai" | "anthropic" | "openai-compatible";

export interface KnownProvider {
  kind: ProviderKind;
  baseUrl?: string;
  /** Environment variables holding the key, first match wins (`{PROVIDER}_API_KEY` first). */
  keyVariables: string[];
  /** Environment variable that overrides the base URL (operators point providers at proxies or stubs). */
  baseUrlVariable?: string;
  pattern?: RegExp;
}

const envKey = (id: string) => `${id.toUpperCase()}_API_KEY`;

export const KNOWN_PROVIDERS: Record<string, KnownProvider> = {
  openai: {
    kind: "openai",
    baseUrl: "https://api.openai.com/v1",
    keyVariables: [envKey("openai")],
    baseUrlVariable: "OPENAI_BASE_URL",
    pattern: /^(gpt-|chatgpt-|o[134](-|$)|text-|davinci|babbage|ft:gpt)/,
  },
  anthropic: {
    kind: "anthropic",
    baseUrl: "https://api.anthropic.com/v1",
    keyVariables: [envKey("anthropic")],
    baseUrlVariable: "ANTHROPIC_BASE_URL",
    pattern: /^claude-/,
  },
  gemini: {
    kind: "openai-compatible",
    baseUrl: "https://generativelanguage.googleapis.com/v1beta/openai",
    keyVariables: [envKey("gemini")],
    pattern: /^gemini-/,
  },
  mistral: {
    kind: "openai-compatible",
    baseUrl: "https://api.mistral.ai/v1",
    keyVariables: [envKey("mistral")],
    pattern: /^(mistral-|open-mistral|open-mixtral|codestral|ministral|pixtral|magistral)/,
  },
  groq: { kind: "openai-compatible", baseUrl: "https://api.groq.com/openai/v1", keyVariables: [envKey("groq")] },
  cohere: {
    kind: "openai-compatible",
    baseUrl: "https://api.cohere.ai/compatibility/v1",
    keyVariables: [envKey("cohere")],
    pattern: /^command(-|$)/,
  },
  together_ai: {
    kind: "openai-compatible",
    baseUrl: "https://api.together.xyz/v1",
    keyVariables: [envKey("together_ai"), "TOGETHERAI_API_KEY"],
  },
  openrouter: { kind: "openai-compatible", baseUrl: "https://openrouter.ai/api/v1", keyVariables: [envKey("openrouter")] },
  perplexity: { kind: "openai-compatible", baseUrl: "https://api.perplexity.ai", keyVariables: [envKey("perplexity")] },
  deepinfra: { kind: "openai-compatible", baseUrl: "https://api.deepinfra.com/v1/openai", keyVariables: [envKey("deepinfra")] },
  deepseek: { kind: "openai-compatible", baseUrl: "https://api.deepseek.com/v1", keyVariables: [envKey("deepseek")], pattern: /^deepseek-/ },
  xai: { kind: "openai-compatible", baseUrl: "https://api.x.ai/v1", keyVariables: [envKey("xai")], pattern: /^grok-/ },
  fireworks_ai: {
    kind: "openai-compatible",
    baseUrl: "https://api.fireworks.ai/inference/v1",
    keyVariables: [envKey("fireworks_ai"), "FIREWORKS_API_KEY"],
  },
};

export function knownProvider(id: string): KnownProvider | undefined {
  return Object.hasOwn(KNOWN_PROVIDERS, id) ? KNOWN_PROVIDERS[id] : undefined;
}

/** The provider a bare model name belongs to, from its pattern. */
export function providerForModelName(model: string): string | undefined {
  return Object.entries(KNOWN_PROVIDERS).find(([, p]) => p.pattern?.test(model))?.[0];
}
