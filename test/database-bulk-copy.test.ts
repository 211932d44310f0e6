import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyUnlessConflict, type Database } from "../src/db/database.ts";
import { openTestDatabase } from "./support/server.ts";

let db: Database;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(() => db.close());

describe("COPY that gives way to stored rows", () => {
  it("loads rows when none is stored, and on a conflict loads nothing and leaves the transaction usable", async () => {
    const table = `bulk_copy_${Date.now().toString(36)}`;
    await db.query(`CREATE TABLE ${table} (k int PRIMARY KEY, v text)`);
    try {
      const counts = await db.transaction(async (tx) => {
        expect(await copyUnlessConflict(tx, `COPY ${table} (k, v) FROM STDIN`, ["1\ta\n", "2\tb\n"])).toBe(true);
        // Row 3 is new, row 2 is stored: the whole COPY is undone, nothing of it stays.
        expect(await copyUnlessConflict(tx, `COPY ${table} (k, v) FROM STDIN`, ["3\tc\n", "2\tB\n"])).toBe(false);
        await tx.query(`INSERT INTO ${table} (k, v) VALUES (3, 'c'), (2, 'B') ON CONFLICT DO NOTHING`);
        return tx.query<{ k: number; v: string }>(`SELECT k, v FROM ${table} ORDER BY k`);
      });
      expect(counts).toEqual([{ k: 1, v: "a" }, { k: 2, v: "b" }, { k: 3, v: "c" }]);
      // Any other COPY error still fails the transaction.
      await expect(db.transaction((tx) => copyUnlessConflict(tx, `COPY ${table} (k, v) FROM STDIN`, ["not a number\tx\n"]))).rejects.toMatchObject({ code: "22P02" });
    } finally {
      await db.query(`DROP TABLE ${table}`);
    }
  });
});
