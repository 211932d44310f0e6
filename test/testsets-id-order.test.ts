import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { chunkKey, hashChunks, indexBatches } from "../src/testsets/chunks.ts";
import { bytesPrefix, hexPrefix, idOrderedBatches, orderByPrefix } from "../src/testsets/id-order.ts";

const ids = (n: number) => Array.from({ length: n }, () => randomBytes(16));
const line = (id: Buffer, rest: string) => `${id.toString("hex")}\t${rest}\n`;

describe("rows put in id order for loading", () => {
  it("reads the same leading bits from an id's bytes and from its hex text", () => {
    for (const id of ids(100)) expect(hexPrefix(Buffer.from(id.toString("hex")), 0)).toBe(bytesPrefix(id, 0));
    expect(bytesPrefix(Buffer.alloc(16, 0xff), 0)).toBe(2 ** 40 - 1);
  });

  it("orders positions by their ids' leading bits, keeping the order of equal ones", () => {
    const prefixes = [5, 3, 5, 2 ** 40 - 1, 0, 3];
    expect([...orderByPrefix(prefixes.length, (i) => prefixes[i]!)]).toEqual([4, 1, 5, 0, 2, 3]);
    const many = ids(100_000).map((id) => bytesPrefix(id, 0));
    const order = orderByPrefix(many.length, (i) => many[i]!);
    expect(new Set(order).size).toBe(many.length);
    // At 100,000 rows, 36 of an id's 40 leading bits are compared: neighbours differ by less than 2^4 out of order.
    let worst = 0;
    for (let k = 1; k < order.length; k++) worst = Math.min(worst, many[order[k]!]! - many[order[k - 1]!]!);
    expect(worst).toBeGreaterThan(-16);
  });

  it("cuts COPY text into batches in id order, every line once, within the limits", () => {
    const all = ids(5_000);
    const text = Buffer.from(all.map((id, i) => line(id, `{"row": ${i}}`)).join(""));
    // Each batch is a view of one buffer, good until the next: read as they come.
    const batches = Array.from(idOrderedBatches(text, { rows: 700, bytes: 20_000 }), (b) => ({ ...b, text: b.text.toString() }));
    const lines = batches.flatMap((b) => b.text.split("\n").slice(0, -1));
    expect(lines.length).toBe(all.length);
    expect(lines).toEqual(all.map((id, i) => line(id, `{"row": ${i}}`).slice(0, -1)).sort());
    expect(batches.map((b) => b.rows)).toEqual(batches.map((b) => b.text.split("\n").length - 1));
    for (const b of batches) expect(b.rows).toBeLessThanOrEqual(700);
    expect(() => [...idOrderedBatches(Buffer.from("abc"), { rows: 10, bytes: 10 })]).toThrow(/line break/);
  });
});

describe("chunk index rows", () => {
  it("are one line per distinct id and chunk key, in id order, the project on each", () => {
    const project = "0190c3a4-0000-7000-8000-000000000001";
    const shared = ids(3);
    const a = Buffer.concat([...ids(400), shared[0]!, shared[1]!, shared[0]!]);
    const b = Buffer.concat([shared[1]!, ...ids(300), shared[2]!]);
    const chunks = hashChunks([a, b, Buffer.from(a)]);
    const batches = Array.from(indexBatches(project, chunks, { rows: 100, bytes: 1e9 }), (t) => t.toString());
    const lines = batches.flatMap((t) => t.split("\n").slice(0, -1));
    const expected = new Set<string>();
    for (const c of chunks) {
      for (let o = 0; o < c.bytes.length; o += 16) expected.add(`${c.bytes.toString("hex", o, o + 16)}\t${chunkKey(c.hash)}\t${project}`);
    }
    expect(lines.length).toBe(expected.size);
    expect(new Set(lines)).toEqual(expected);
    expect(lines.map((l) => l.slice(0, 32))).toEqual(lines.map((l) => l.slice(0, 32)).sort());
    expect(batches.length).toBe(Math.ceil(expected.size / 100));
  });
});
