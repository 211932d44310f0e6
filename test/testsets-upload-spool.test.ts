import { describe, expect, it } from "vitest";
import type { ClaimedRow, RowBlock } from "../src/testsets/row-block.ts";
import { UploadSpool } from "../src/testsets/upload-spool.ts";

/** A block of `lines` COPY lines of about 1 KB in `range`, every tenth block with a claimed row. */
function block(range: number, n: number, lines = 300): RowBlock {
  const text = Array.from({ length: lines }, (_, i) => `${range}-${n}-${i}\t${"x".repeat(1000)}\n`).join("");
  const claimed: ClaimedRow[] = n % 10 === 0
    ? [{ at: n, claimed: `id-${n}`, stored: `{"n": ${n}}`, line: `line ${n}\n` }]
    : [];
  return { range, copy: Buffer.from(text), claimed };
}

describe("an upload's spool", () => {
  it("gives back each id range's blocks in the order they came, from its file", async () => {
    const spool = new UploadSpool();
    const pushed: RowBlock[] = [];
    try {
      // 60 blocks of about 300 KB: past 8 MB held, the spool writes its blocks to its file.
      for (let n = 0; n < 60; n++) {
        const b = block(n % 3, n);
        pushed.push(b);
        await spool.push(b);
      }
      for (const range of [2, 0, 1]) {
        const own = pushed.filter((b) => b.range === range);
        const { text, claimed } = await spool.range(range);
        expect(text.equals(Buffer.concat(own.map((b) => b.copy)))).toBe(true);
        expect(claimed).toEqual(own.flatMap((b) => b.claimed));
      }
      expect((await spool.range(5)).text.length).toBe(0);
    } finally {
      await spool.close();
    }
  });

  it("keeps a few blocks in memory without a file", async () => {
    const spool = new UploadSpool();
    const b = block(1, 10, 5);
    await spool.push(b);
    const { text, claimed } = await spool.range(1);
    expect(text.toString()).toBe(Buffer.from(b.copy).toString());
    expect(claimed).toEqual(b.claimed);
    await spool.close();
  });
});
