import { invalidParameters } from "../../errors.ts";
import { DEFAULT_SANDBOX_LIMITS, runInSandbox } from "../../code/sandbox.ts";
import { type Evaluator, outputText } from "../context.ts";
import { flag, requiredString } from "../parameters.ts";
import { toJsRegex } from "./python-regex.ts";

/*
 * The pattern is the user's and so is the text: a catastrophic pattern (`(a+)+$`) would hold the
 * event loop for as long as it backtracks. It runs in the code sandbox, whose deadline interrupts
 * the regex engine too.
 */
const MATCHER = `function search(source, flags, text) {
  try { return { matched: new RegExp(source, flags).test(text) }; }
  catch (error) { return { error: String(error && error.message || error) }; }
}`;

/** `auto_regex_test`: passes when the pattern is found anywhere in the output (or, if so set, is not). */
export const regexTest: Evaluator = async (context) => {
  const { parameters } = context;
  const regex = toJsRegex(requiredString(parameters, "regex_pattern"), flag(parameters, "case_sensitive", true));
  const shouldMatch = flag(parameters, "regex_should_match", true);
  const text = outputText(context);
  const span = context.openSpan("regex.search", "code");
  span.set({ pattern: regex.source, flags: regex.flags });
  const result = await (context.request.sandbox ?? runInSandbox)(MATCHER, [{ entry: "search", args: [regex.source, regex.flags, text] }], {
    ...DEFAULT_SANDBOX_LIMITS,
    timeMs: context.request.timeouts?.codeMs ?? DEFAULT_SANDBOX_LIMITS.timeMs,
    ...(context.request.limits?.codeMemoryBytes !== undefined && { memoryBytes: context.request.limits.codeMemoryBytes }),
  });
  const value = result?.value as { matched?: boolean; error?: string } | undefined;
  if (value?.error !== undefined) throw invalidParameters(`parameters.regex_pattern is not a valid regular expression: ${value.error}`);
  span.set({ matched: value?.matched === true });
  span.end();
  return { outputs: { success: (value?.matched === true) === shouldMatch } };
};
