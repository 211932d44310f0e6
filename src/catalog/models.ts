/**
 * Models offered in pickers, grouped by provider. Ids outside OpenAI carry the provider prefix
 * (`anthropic/…`), which is how the runtime picks the provider and its key; any other id can still
 * be typed in, this list only feeds the choice.
 */
export const MODEL_CHOICES: Record<string, string[]> = {
  openai: [
    "gpt-5", "gpt-5-mini", "gpt-5-nano", "gpt-4.1", "gpt-4.1-mini", "gpt-4.1-nano",
    "gpt-4o", "gpt-4o-mini", "o4-mini", "o3", "o3-mini", "gpt-4-turbo", "gpt-3.5-turbo",
  ],
  anthropic: [
    "anthropic/claude-opus-4-1", "anthropic/claude-sonnet-4-5", "anthropic/claude-haiku-4-5",
    "anthropic/claude-sonnet-4-20250514", "anthropic/claude-opus-4-20250514",
    "anthropic/claude-3-7-sonnet-20250219", "anthropic/claude-3-5-haiku-20241022",
  ],
  gemini: [
    "gemini/gemini-2.5-pro", "gemini/gemini-2.5-flash", "gemini/gemini-2.5-flash-lite",
    "gemini/gemini-2.0-flash", "gemini/gemini-2.0-flash-lite",
  ],
  mistral: ["mistral/mistral-large-latest", "mistral/mistral-medium", "mistral/mistral-small", "mistral/mistral-tiny"],
  groq: [
    "groq/llama-3.3-70b-versatile", "groq/llama-3.1-8b-instant", "groq/gemma2-9b-it",
    "groq/deepseek-r1-distill-llama-70b",
  ],
  cohere: ["cohere/command-r-plus", "cohere/command-light"],
  together_ai: [
    "together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo", "together_ai/deepseek-ai/DeepSeek-V3",
    "together_ai/Qwen/Qwen2.5-72B-Instruct-Turbo",
  ],
  openrouter: [
    "openrouter/meta-llama/llama-4-maverick", "openrouter/qwen/qwen3-235b-a22b", "openrouter/deepseek/deepseek-r1",
  ],
  perplexityai: ["perplexity/sonar", "perplexity/sonar-pro"],
  deepinfra: ["deepinfra/meta-llama/Llama-2-70b-chat-hf"],
};

export const DEFAULT_MODEL = "gpt-4o-mini";
