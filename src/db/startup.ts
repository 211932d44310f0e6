import { setTimeout as sleep } from "node:timers/promises";
import type { Config } from "../config.ts";
import type { Database } from "./database.ts";
import { openDatabase } from "./open.ts";
import { openPostgres } from "./postgres-driver.ts";
import { databaseUnavailable } from "./unavailable.ts";

/** A start that cannot go on, with the one line that says why and what to do (printed without a stack). */
export class StartupError extends Error {}

type StartupConfig = Pick<Config, "databaseUrl" | "dataDir" | "dbPoolSize" | "dbConnectTimeoutMs" | "dbStatementTimeoutMs" | "dbStartupTimeoutMs">;

const FIRST_RETRY_MS = 250;
const LONGEST_RETRY_MS = 5_000;

/**
 * Opens the database a starting process needs. PostgreSQL that is not up yet (containers start in any
 * order) is retried with backoff for TESSERA_DB_STARTUP_TIMEOUT_MS, one line per attempt on `say`; a
 * database that does not exist is created when the role may. Anything else is a StartupError.
 */
export async function openDatabaseAtStartup(config: StartupConfig, say: (line: string) => void): Promise<Database> {
  if (!config.databaseUrl) return openDatabase(config);
  const url = new URL(config.databaseUrl);
  const where = `${url.host}${url.pathname}`;
  const deadline = Date.now() + config.dbStartupTimeoutMs;
  let delay = FIRST_RETRY_MS;
  let created = false;
  for (let attempt = 1; ; attempt++) {
    try {
      return await openDatabase(config);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === "3D000" && !created) {
        await createDatabase(url, say);
        created = true;
        continue;
      }
      const unavailable = databaseUnavailable(error);
      if (!unavailable) throw new StartupError(`Cannot use PostgreSQL at ${where}: ${(error as Error).message}. Check DATABASE_URL.`);
      const left = deadline - Date.now();
      const total = `${config.dbStartupTimeoutMs / 1000} s`;
      if (left <= 0) {
        throw new StartupError(
          `PostgreSQL at ${where} is still unreachable after ${total} (TESSERA_DB_STARTUP_TIMEOUT_MS): ${unavailable}. Start it, or fix DATABASE_URL.`,
        );
      }
      const wait = Math.min(delay, left);
      say(`PostgreSQL at ${where} is not reachable yet (${unavailable}): attempt ${attempt}, next in ${(wait / 1000).toFixed(2)} s, giving up after ${total}`);
      await sleep(wait);
      delay = Math.min(delay * 2, LONGEST_RETRY_MS);
    }
  }
}

/** CREATE DATABASE for DATABASE_URL's database, through the server's `postgres` database with the same role. */
async function createDatabase(url: URL, say: (line: string) => void): Promise<void> {
  const name = decodeURIComponent(url.pathname.slice(1));
  const role = decodeURIComponent(url.username) || "this role";
  const maintenance = new URL(url);
  maintenance.pathname = "/postgres";
  const cannot = (why: string) =>
    new StartupError(`Database "${name}" does not exist on ${url.host} and ${why}: create it (createdb -h ${url.hostname} -p ${url.port || 5432} ${name}) or point DATABASE_URL at one that exists.`);
  let admin: Database;
  try {
    admin = await openPostgres(maintenance.toString(), { poolSize: 1 });
  } catch (error) {
    throw cannot(`its "postgres" database cannot be reached to create it (${(error as Error).message})`);
  }
  try {
    await admin.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
    say(`Created the PostgreSQL database "${name}" on ${url.host} (it did not exist).`);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "42P04") return; // another process created it meanwhile
    if (code === "42501") throw cannot(`role "${role}" may not create databases`);
    throw cannot(`creating it failed (${(error as Error).message})`);
  } finally {
    await admin.close();
  }
}
