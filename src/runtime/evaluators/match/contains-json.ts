import { type Evaluator, outputText } from "../context.ts";

/** `auto_contains_json`: the text from the first `{` to the last `}` (or `[` … `]`) parses as JSON. */
export const containsJson: Evaluator = (context) => {
  const text = outputText(context);
  return { outputs: { success: embedsJson(text, "{", "}") || embedsJson(text, "[", "]") } };
};

function embedsJson(text: string, open: string, close: string): boolean {
  const start = text.indexOf(open);
  const end = text.lastIndexOf(close);
  if (start === -1 || end < start) return false;
  try {
    JSON.parse(text.slice(start, end + 1));
    return true;
  } catch {
    return false;
  }
}
