import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH, tooDeep } from "../src/json-depth.ts";

const nested = (levels: number, wrap: (inner: unknown) => unknown) => {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = wrap(value);
  return value;
};

describe("JSON nesting limit", () => {
  it(`allows ${MAX_JSON_DEPTH} levels of arrays or objects and refuses one more`, () => {
    for (const wrap of [(v: unknown) => [v], (v: unknown) => ({ a: v })]) {
      expect(tooDeep(nested(MAX_JSON_DEPTH, wrap))).toBe(false);
      expect(tooDeep(nested(MAX_JSON_DEPTH + 1, wrap))).toBe(true);
    }
  });

  it("finds a deep branch beside shallow ones, and stops at the limit however deep the value goes", () => {
    const wide = { a: Array.from({ length: 1000 }, (_, i) => ({ i })), b: nested(MAX_JSON_DEPTH, (v) => [v]) };
    expect(tooDeep(wide)).toBe(true);
    expect(tooDeep(nested(1_000_000, (v) => [v]))).toBe(true);
    expect([null, 1, "x", true].map(tooDeep)).toEqual([false, false, false, false]);
  });
});
