import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { DedupIds, DigestCounts } from "../src/testsets/testcase-id.ts";

describe("row identity within an upload", () => {
  it("counts each digest by its first 16 bytes, through the table's growth", () => {
    const counts = new DigestCounts();
    const digests = Array.from({ length: 20_000 }, () => randomBytes(32));
    // Three passes, the table growing from 1,024 slots during the first: every digest seen 0, 1, then 2 times before.
    for (let pass = 0; pass < 3; pass++) {
      for (const digest of digests) expect(counts.bump(digest)).toBe(pass);
    }
    // The bytes after the 16th do not make a digest another one.
    const twin = Buffer.concat([digests[7]!.subarray(0, 16), randomBytes(16)]);
    expect(counts.bump(twin)).toBe(3);
    // Digests whose leading words collide (the slot is chosen from words 0 and 2) stay apart.
    const a = Buffer.alloc(16, 1);
    const b = Buffer.from(a);
    b[15] = 2;
    expect([counts.bump(a), counts.bump(b), counts.bump(a), counts.bump(b)]).toEqual([0, 0, 1, 1]);
  });

  it("gives identical rows distinct ids, the same ids in every upload of the same rows", () => {
    const rows = ['{"q":"a"}', '{"q":"b"}', '{"q":"a"}', '{"q":"a"}'];
    const first = new DedupIds();
    const ids = rows.map((row) => first.nextFor(row));
    expect(new Set(ids).size).toBe(4);
    const again = new DedupIds();
    expect(rows.map((row) => again.nextFor(row))).toEqual(ids);
  });
});
