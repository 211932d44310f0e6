import { type Evaluator, outputText } from "../context.ts";
import { flag, threshold } from "../parameters.ts";
import { expectedText } from "./expected-text.ts";

/**
 * `auto_similarity_match`: Jaccard similarity of the two texts' sets of whitespace-separated words;
 * passes at or above `similarity_threshold` (`threshold` is accepted as its older name).
 */
export const similarityMatch: Evaluator = (context) => {
  const { parameters } = context;
  const pass = parameters.threshold !== undefined && parameters.threshold !== null ? threshold(parameters) : threshold(parameters, "similarity_threshold");
  const fold = flag(parameters, "case_sensitive", true) ? (s: string) => s : (s: string) => s.toLowerCase();
  const score = jaccard(words(fold(outputText(context))), words(fold(expectedText(context))));
  return { outputs: { score, success: score >= pass } };
};

const words = (text: string) => new Set(text.split(/\s+/).filter((w) => w !== ""));

function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const word of a) if (b.has(word)) shared++;
  return shared / (a.size + b.size - shared);
}
