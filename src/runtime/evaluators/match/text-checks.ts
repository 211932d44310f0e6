import { invalidParameters } from "../../errors.ts";
import { type Evaluator, outputText } from "../context.ts";
import { flag, requiredString } from "../parameters.ts";

// `auto_starts_with`, `auto_ends_with`, `auto_contains`, `auto_contains_any`, `auto_contains_all`.

function textCheck(name: string, test: (output: string, needle: string) => boolean): Evaluator {
  return (context) => {
    const needle = requiredString(context.parameters, name);
    const fold = caseFolder(context.parameters);
    return { outputs: { success: test(fold(outputText(context)), fold(needle)) } };
  };
}

function listCheck(quantifier: "some" | "every"): Evaluator {
  return (context) => {
    const fold = caseFolder(context.parameters);
    const output = fold(outputText(context));
    const needles = substrings(context.parameters.substrings).map(fold);
    return { outputs: { success: needles[quantifier]((needle) => output.includes(needle)) } };
  };
}

const caseFolder = (parameters: Record<string, unknown>) => (flag(parameters, "case_sensitive", true) ? (s: string) => s : (s: string) => s.toLowerCase());

/** A comma-separated string (the catalog's form) or a list (the reference SDK's); blanks are dropped. */
function substrings(value: unknown): string[] {
  const list = typeof value === "string" ? value.split(",") : value;
  if (!Array.isArray(list) || !list.every((s) => typeof s === "string")) {
    throw invalidParameters("parameters.substrings must be a comma-separated string or a list of strings");
  }
  const needles = list.map((s) => s.trim()).filter((s) => s !== "");
  if (needles.length === 0) throw invalidParameters("parameters.substrings must name at least one substring");
  return needles;
}

export const startsWith = textCheck("prefix", (output, prefix) => output.startsWith(prefix));
export const endsWith = textCheck("suffix", (output, suffix) => output.endsWith(suffix));
export const contains = textCheck("substring", (output, substring) => output.includes(substring));
export const containsAny = listCheck("some");
export const containsAll = listCheck("every");
