import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../src/db/database.ts";
import { openPglite } from "../src/db/pglite-driver.ts";
import { startMaintenance } from "../src/db/pglite-maintenance.ts";
import { openPostgres } from "../src/db/postgres-driver.ts";

// The embedded database has no autovacuum: the driver's own maintenance takes its place.
let db: Database;
beforeAll(async () => {
  db = await openPglite(null, { maintenanceMs: 200 });
});
afterAll(() => db.close());

interface TableStats {
  n_dead_tup: number;
  n_mod_since_analyze: number;
  last_vacuum: Date | null;
  last_analyze: Date | null;
}
const stats = async () => (await db.query<TableStats>(
  `SELECT n_dead_tup::int, n_mod_since_analyze::int, last_vacuum, last_analyze
   FROM pg_stat_user_tables WHERE relname = 'churn'`,
))[0];

describe("embedded database maintenance", () => {
  it("vacuums a table whose updates left dead rows, and analyzes a table that grew", async () => {
    await db.query("CREATE TABLE churn (id int PRIMARY KEY, status text)");
    await db.query("INSERT INTO churn SELECT g, 'queued' FROM generate_series(1, 2000) g");
    for (let i = 0; i < 3; i++) {
      await db.query("UPDATE churn SET status = CASE WHEN status = 'queued' THEN 'done' ELSE 'queued' END");
    }
    await expect.poll(async () => (await stats())?.last_vacuum, { timeout: 10_000 }).not.toBeNull();
    expect(await stats()).toMatchObject({ n_dead_tup: 0, n_mod_since_analyze: 0 });

    await db.query("CREATE TABLE grown (id int PRIMARY KEY)");
    await db.query("INSERT INTO grown SELECT generate_series(1, 1000)");
    await expect.poll(async () => (await db.query<{ last_analyze: Date | null }>(
      "SELECT last_analyze FROM pg_stat_user_tables WHERE relname = 'grown'",
    ))[0]?.last_analyze, { timeout: 10_000 }).not.toBeNull();
    // An insert-only table has no dead rows: it is analyzed, not vacuumed.
    const [grown] = await db.query("SELECT last_vacuum FROM pg_stat_user_tables WHERE relname = 'grown'");
    expect(grown).toEqual({ last_vacuum: null });
  });

  it("waits while a request's statement is queued, and samples fewer rows than PostgreSQL's default", async () => {
    const own = await openPglite(null, { maintenanceMs: 1e9 });
    let busy = true;
    const maintenance = startMaintenance(own, 100, () => busy, (error) => {
      throw error;
    });
    try {
      await own.query("CREATE TABLE busy (id int PRIMARY KEY)");
      await own.query("INSERT INTO busy SELECT generate_series(1, 1000)");
      const row = async () => (await own.query<{ n_mod_since_analyze: string; last_analyze: Date | null }>(
        "SELECT n_mod_since_analyze, last_analyze FROM pg_stat_user_tables WHERE relname = 'busy'",
      ))[0];
      // Due: its statistics reach the view about a second after the insert.
      await expect.poll(async () => Number((await row())?.n_mod_since_analyze), { timeout: 10_000 }).toBe(1000);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect((await row())?.last_analyze).toBeNull();
      busy = false;
      await expect.poll(async () => (await row())?.last_analyze, { timeout: 10_000 }).not.toBeNull();
      expect(await own.query("SHOW default_statistics_target")).toEqual([{ default_statistics_target: "20" }]);
    } finally {
      await maintenance.stop();
      await own.close();
    }
  });
});

describe.runIf(process.env.DATABASE_URL)("PostgreSQL maintenance", () => {
  it("analyzes a table that grew when the server's autovacuum is off", async (ctx) => {
    const server = await openPostgres(process.env.DATABASE_URL!, { poolSize: 2, maintenanceMs: 200 });
    try {
      const [setting] = await server.query<{ on: boolean }>("SELECT current_setting('autovacuum') = 'on' AS on");
      if (setting!.on) ctx.skip(); // autovacuum gathers the statistics itself
      const table = `grown_${Date.now()}`;
      await server.query(`CREATE TABLE ${table} (id int PRIMARY KEY)`);
      try {
        await server.query(`INSERT INTO ${table} SELECT generate_series(1, 1000)`);
        await expect.poll(async () => (await server.query<{ last_analyze: Date | null }>(
          "SELECT last_analyze FROM pg_stat_user_tables WHERE relname = $1", [table],
        ))[0]?.last_analyze, { timeout: 10_000 }).not.toBeNull();
      } finally {
        await server.query(`DROP TABLE ${table}`);
      }
    } finally {
      await server.close();
    }
  });
});
