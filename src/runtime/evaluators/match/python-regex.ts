import { invalidParameters } from "../../errors.ts";

export interface JsRegex {
  source: string;
  flags: string;
}

const INLINE_FLAGS: Record<string, string> = { i: "i", m: "m", s: "s", u: "", a: "" };

/**
 * Patterns saved in the reference are Python `re` patterns: translate the spellings JavaScript lacks
 * (`(?P<name>…)`, `(?P=name)`, leading inline flags such as `(?i)`) and check that the result compiles.
 */
export function toJsRegex(pattern: string, caseSensitive: boolean): JsRegex {
  let source = pattern.replace(/\(\?P</g, "(?<").replace(/\(\?P=(\w+)\)/g, "\\k<$1>");
  const flags = new Set(caseSensitive ? [] : ["i"]);
  const leading = /^\(\?([a-zA-Z]+)\)/.exec(source);
  if (leading) {
    for (const letter of leading[1]) {
      const flag = INLINE_FLAGS[letter];
      if (flag === undefined) throw invalidParameters(`parameters.regex_pattern uses the inline flag '${letter}', which is not supported`);
      if (flag) flags.add(flag);
    }
    source = source.slice(leading[0].length);
  }
  const regex = { source, flags: [...flags].join("") };
  try {
    new RegExp(regex.source, regex.flags);
  } catch (error) {
    throw invalidParameters(`parameters.regex_pattern is not a valid regular expression: ${(error as Error).message}`);
  }
  return regex;
}
