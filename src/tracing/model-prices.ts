/*
 * What a model call costs, for spans that report tokens but no cost. Prices are USD per million tokens, prompt
 * and completion, as litellm's model_prices_and_context_window.json lists them (the table the reference's
 * `cost_per_token` reads), for a few common models; a model not listed gets no computed cost. Tokens read from a
 * provider's prompt cache are priced as fresh prompt tokens here.
 */

const PER_MILLION: Record<string, [prompt: number, completion: number]> = {
  "gpt-4o": [2.5, 10],
  "gpt-4o-mini": [0.15, 0.6],
  "gpt-4.1": [2, 8],
  "gpt-4.1-mini": [0.4, 1.6],
  "gpt-4.1-nano": [0.1, 0.4],
  "gpt-4-turbo": [10, 30],
  "gpt-3.5-turbo": [0.5, 1.5],
  "o3-mini": [1.1, 4.4],
  "o4-mini": [1.1, 4.4],
  "claude-3-5-sonnet": [3, 15],
  "claude-3-5-haiku": [0.8, 4],
  "claude-3-haiku": [0.25, 1.25],
  "text-embedding-3-small": [0.02, 0],
  "text-embedding-3-large": [0.13, 0],
};
// Longest first, so that a dated name (`gpt-4o-mini-2024-07-18`) finds `gpt-4o-mini` before `gpt-4o`.
const NAMES = Object.keys(PER_MILLION).sort((a, b) => b.length - a.length);

/** Prompt and completion cost in USD of a call to `model` (`provider/` prefixes allowed), or null when unknown. */
export function costOf(model: string, promptTokens: number, completionTokens: number): [number, number] | null {
  const name = model.toLowerCase().split("/").pop()!;
  const known = PER_MILLION[name] ? name : NAMES.find((n) => name.startsWith(`${n}-`));
  if (!known) return null;
  const [prompt, completion] = PER_MILLION[known]!;
  return [(promptTokens * prompt) / 1e6, (completionTokens * completion) / 1e6];
}
