import { upstreamFailed } from "../errors.ts";

export interface ScoreOutputs {
  score: number;
  success: boolean;
}

/**
 * A grader's answer as `{score, success}`: a number is the score, a boolean a pass (1) or a fail (0),
 * an object is read for its `score` (or `success`), text is parsed as JSON or as a bare number.
 * Anything else is the grader's fault (502), named by `who`.
 */
export function readScore(answer: unknown, threshold: number, who: string): ScoreOutputs {
  if (typeof answer === "boolean") return { score: answer ? 1 : 0, success: answer };
  if (typeof answer === "number" && Number.isFinite(answer)) return { score: answer, success: answer >= threshold };
  if (typeof answer === "string") {
    const text = answer.trim();
    const number = Number(text);
    if (text !== "" && Number.isFinite(number)) return readScore(number, threshold, who);
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed !== "string") return readScore(parsed, threshold, who);
    } catch {
      // not JSON: no score to find
    }
  }
  if (typeof answer === "object" && answer !== null && !Array.isArray(answer)) {
    const record = answer as Record<string, unknown>;
    if (typeof record.score === "number" || typeof record.score === "string") return readScore(record.score, threshold, who);
    if (typeof record.success === "boolean") return readScore(record.success, threshold, who);
  }
  throw upstreamFailed(`${who} answered without a score: ${excerpt(answer)}`);
}

function excerpt(answer: unknown): string {
  const text = typeof answer === "string" ? answer : JSON.stringify(answer) ?? String(answer);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
