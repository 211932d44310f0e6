import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { migrate } from "../src/db/migrate.ts";
import { openPglite } from "../src/db/pglite-driver.ts";
import { emptyDatabase, type EmptyDatabase } from "./support/empty-database.ts";

const MIGRATIONS = readdirSync(new URL("../src/db/migrations/", import.meta.url))
  .filter((f) => f.endsWith(".sql"))
  .map((f) => f.replace(/\.sql$/, ""))
  .sort();

let empty: EmptyDatabase | undefined;
afterEach(async () => {
  await empty?.dispose();
  empty = undefined;
});

describe("migrations", () => {
  it("apply every version once, in order, and then nothing", async () => {
    empty = await emptyDatabase();
    const db = await empty.connect();
    expect(await migrate(db)).toEqual(MIGRATIONS);
    expect(await migrate(db)).toEqual([]);
    const rows = await db.query<{ version: string }>("SELECT version FROM schema_migrations ORDER BY version");
    expect(rows.map((r) => r.version)).toEqual(MIGRATIONS);
    // The schema is there: the tables of the first migration answer.
    expect(await db.query("SELECT count(*)::int AS n FROM projects")).toEqual([{ n: 0 }]);
  });

  it("are safe when two processes start at once: one applies, the other finds nothing to do", async () => {
    empty = await emptyDatabase();
    // On PostgreSQL two pools (two processes' worth of connections); on PGlite one instance, twice.
    const [a, b] = [await empty.connect(), await empty.connect()];
    const results = await Promise.all([migrate(a), migrate(b), migrate(a)]);
    expect(results.map((r) => r.length).sort()).toEqual([0, 0, MIGRATIONS.length]);
    const rows = await a.query<{ version: string; n: number }>("SELECT version, count(*)::int AS n FROM schema_migrations GROUP BY version ORDER BY version");
    expect(rows).toEqual(MIGRATIONS.map((version) => ({ version, n: 1 })));
  });
});

describe("embedded database directory", () => {
  it("persists across reopen, and is open once at a time", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tessera-db-"));
    try {
      const first = await openPglite(join(dir, "db"));
      expect(await migrate(first)).toEqual(MIGRATIONS);
      await first.query("CREATE TABLE marker (note text)");
      await first.query("INSERT INTO marker VALUES ('kept')");
      expect(readFileSync(join(dir, "db.lock"), "utf8")).toBe(String(process.pid));
      await expect(openPglite(join(dir, "db"))).rejects.toThrow(/already open in this process/);
      await first.close();
      expect(existsSync(join(dir, "db.lock"))).toBe(false);

      const again = await openPglite(join(dir, "db"));
      expect(await migrate(again)).toEqual([]);
      expect(await again.query("SELECT note FROM marker")).toEqual([{ note: "kept" }]);
      await again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("takes over a lock left by a process that is gone, or by an earlier life of this pid", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tessera-db-"));
    try {
      // A pid above the kernel's maximum (2^22) cannot be running.
      for (const stale of ["4194305", String(process.pid)]) {
        writeFileSync(join(dir, "db.lock"), stale);
        const db = await openPglite(join(dir, "db"));
        expect(readFileSync(join(dir, "db.lock"), "utf8")).toBe(String(process.pid));
        await db.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
