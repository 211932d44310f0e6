import { describe, expect, it } from "vitest";
import { canonicalJson, canonicalWith, canonicalWithout } from "../src/testsets/canonical-json.ts";

describe("canonical JSON of testcase data (RFC 8785)", () => {
  it("sorts keys by UTF-16 code units, drops undefined and writes numbers as ECMAScript does", () => {
    expect(canonicalJson({ b: 1, a: [1e21, 0.1, null], "é": "x", A: { z: true, y: undefined } })).toBe('{"A":{"z":true},"a":[1e+21,0.1,null],"b":1,"é":"x"}');
  });

  it("gives a record without a key, and with it set, as canonicalJson would", () => {
    const records: Record<string, unknown>[] = [
      {},
      { input: "q", expected: "a" },
      { a: 1, z: 2 },
      { testcase_dedup_id: "old", input: "q" },
      { "testcase_dedup_id_2": 1, testcase: { nested: ["x"] }, "ü": "u", T: null },
    ];
    for (const record of records) {
      const { testcase_dedup_id: _, ...rest } = record;
      const pair = canonicalWithout(record, "testcase_dedup_id");
      expect(pair.text).toBe(canonicalJson(rest));
      expect(canonicalWith(pair.text, pair.at, "testcase_dedup_id", "d1"))
        .toBe(canonicalJson({ ...rest, testcase_dedup_id: "d1" }));
    }
  });
});
