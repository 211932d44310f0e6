import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { binaryCopyData, BinaryRows, binaryTuples, timeOf, tupleField } from "../src/db/copy-binary.ts";
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

describe("binary COPY", () => {
  const ID = "0195f3a1-2b3c-7d4e-8f90-a1b2c3d4e5f6";
  const TIMES = [
    "2026-11-22T00:40:54.482017Z", "2000-01-01T00:00:00.000000Z", "1999-12-31T23:59:59.999999Z",
    "1970-01-01T00:00:00.000001Z", "1600-02-29T12:00:00.500000Z", "2400-02-29T23:59:59.000001Z",
    "9999-12-31T23:59:59.999999Z", "1969-07-20T20:17:40.123456Z", "2026-11-22T01:02:03.4Z", "2026-11-22T01:02:03+02:00",
  ];

  it("reads a time to the microsecond, by digits or through Date.parse", () => {
    const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);
    expect(timeOf("2026-11-22T00:40:54.482017Z")).toEqual({ seconds: seconds("2026-11-22T00:40:54Z"), micros: 482017 });
    expect(timeOf("1600-02-29T12:00:00.500000Z")).toEqual({ seconds: seconds("1600-02-29T12:00:00Z"), micros: 5e5 });
    expect(timeOf("1969-12-31T23:59:59.25Z")).toEqual({ seconds: -1, micros: 250_000 });
    expect(timeOf("2026-11-22T01:02:03+02:00")).toEqual({ seconds: seconds("2026-11-21T23:02:03Z"), micros: 0 });
    const wrongs = ["2026-02-29T00:00:00", "2026-04-31T00:00:00", "2026-11-22T24:00:00", "2026-1x-22T00:00:00"];
    for (const wrong of ["yesterday", ...wrongs.map((time) => `${time}.000000Z`)]) {
      expect(() => timeOf(wrong)).toThrow("not a time");
    }
    expect(timeOf("2024-02-29T00:00:00.000000Z").seconds).toBe(Date.parse("2024-02-29T00:00:00Z") / 1000);
  });

  it("stores each kind of field as the database reads it from text, and a whole batch or nothing", async () => {
    const table = `binary_copy_${Date.now().toString(36)}`;
    await db.query(`CREATE TABLE ${table} (id uuid, t timestamptz, label text, doc jsonb)`);
    const copy = `COPY ${table} (id, t, label, doc) FROM STDIN WITH (FORMAT binary)`;
    const rows = new BinaryRows(16);
    const docs = [{ a: [1, "é", "\n\t\\"] }, "😀 \u2028", null];
    try {
      TIMES.forEach((time, i) => {
        rows.row(4).uuid(i % 2 ? ID : null).timestamptz(time)
          .text(i % 3 ? `row ${i}: tab\there` : null).jsonb(docs[i % 3] === null ? null : JSON.stringify(docs[i % 3]));
      });
      const data = rows.take();
      expect([...binaryTuples(data)]).toHaveLength(TIMES.length);
      await db.copyFrom(copy, binaryCopyData([data]));
      const read = await db.query<{ id: string | null; t: string; label: string | null; doc: unknown }>(
        `SELECT id::text, to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS t, label, doc FROM ${table}`,
      );
      expect(read.map((r) => r.t)).toEqual(
        (await db.query<{ t: string }>(`SELECT to_char(x::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')
          AS t FROM unnest($1::text[]) x`, [TIMES])).map((r) => r.t),
      );
      expect(read.map((r) => r.id)).toEqual(TIMES.map((_, i) => (i % 2 ? ID : null)));
      expect(read.map((r) => r.label)).toEqual(TIMES.map((_, i) => (i % 3 ? `row ${i}: tab\there` : null)));
      expect(read.map((r) => r.doc)).toEqual(TIMES.map((_, i) => docs[i % 3]));
      // A row the database refuses (a jsonb version it does not know) fails the COPY, and none of its rows stays.
      rows.row(4).uuid(null).timestamptz(TIMES[0]!).text("kept?").jsonb("{}");
      const good = rows.take();
      rows.row(4).uuid(null).timestamptz(TIMES[0]!).text("refused").jsonb("{}");
      const bad = rows.take();
      tupleField(bad, 3)![0] = 2;
      const load = db.transaction((tx) => tx.copyFrom!(copy, binaryCopyData([good, bad])));
      await expect(load).rejects.toThrow(/jsonb version/);
      expect(await db.query(`SELECT 1 FROM ${table} WHERE label IN ('kept?', 'refused')`)).toEqual([]);
      expect(() => rows.uuid("not-a-uuid")).toThrow("not a uuid");
    } finally {
      await db.query(`DROP TABLE ${table}`);
    }
  });
});
