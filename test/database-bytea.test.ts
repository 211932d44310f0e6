import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../src/db/database.ts";
import { byteaCodec } from "../src/db/pglite-driver.ts";
import { openTestDatabase } from "./support/server.ts";

let db: Database;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(() => db.close());

/** Packed ids (a chunk's testcases) are bytea: written as a parameter, read back as bytes, on either database. */
describe("bytea values", () => {
  it("go in as parameters and come back byte for byte, from none to megabytes", async () => {
    const values = [new Uint8Array(0), Uint8Array.of(0), Uint8Array.of(0, 255, 16, 1), randomBytes(4 * 1024 * 1024)];
    for (const value of values) {
      const [row] = await db.query<{ v: Uint8Array; n: number; hex: string }>(
        "SELECT $1::bytea AS v, length($1::bytea)::int AS n, encode(substring($1::bytea FROM 1 FOR 4), 'hex') AS hex",
        [value],
      );
      expect(row!.n).toBe(value.length);
      expect(row!.hex).toBe(Buffer.from(value.subarray(0, 4)).toString("hex"));
      expect(row!.v).toBeInstanceOf(Uint8Array);
      expect(Buffer.compare(Buffer.from(row!.v), Buffer.from(value))).toBe(0);
    }
  });

  it("in the embedded database's text form, both ways, a view into a larger buffer included", () => {
    const whole = Uint8Array.of(9, 0xab, 0x00, 0xff, 7);
    expect(byteaCodec.serialize(whole.subarray(1, 4))).toBe("\\xab00ff");
    expect(byteaCodec.serialize(new Uint8Array(0))).toBe("\\x");
    expect([...byteaCodec.parse("\\xab00ff")]).toEqual([0xab, 0, 0xff]);
    expect(byteaCodec.parse("\\x")).toEqual(new Uint8Array(0));
    expect(() => byteaCodec.serialize("ab")).toThrow(/bytea/);
  });
});
