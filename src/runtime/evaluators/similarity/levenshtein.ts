import { type Evaluator, outputText } from "../context.ts";
import { flag, optionalNumber } from "../parameters.ts";
import { expectedText } from "./expected-text.ts";

/**
 * `auto_levenshtein_distance`: the score is the edit distance (in UTF-16 code units) between output
 * and expected answer; with a `threshold`, it passes when the distance is at most that.
 */
export const levenshteinDistance: Evaluator = (context) => {
  const { parameters } = context;
  const limit = optionalNumber(parameters, "threshold", 0);
  const fold = flag(parameters, "case_sensitive", true) ? (s: string) => s : (s: string) => s.toLowerCase();
  const score = distance(fold(outputText(context)), fold(expectedText(context)));
  return { outputs: limit === undefined ? { score } : { score, success: score <= limit } };
};

/** Two rows of the classic table: O(|a|·|b|) time, O(|b|) memory. */
export function distance(a: string, b: string): number {
  if (a === b) return 0;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}
