import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from "fastify";
import { afterAll } from "vitest";
import { createAccount } from "../../src/accounts/accounts.ts";
import { createApiKey } from "../../src/accounts/api-keys.ts";
import { loadConfig, type Config } from "../../src/config.ts";
import type { Database } from "../../src/db/database.ts";
import { migrate } from "../../src/db/migrate.ts";
import { openPglite } from "../../src/db/pglite-driver.ts";
import { openPostgres } from "../../src/db/postgres-driver.ts";
import { buildServer } from "../../src/http/server.ts";
import { uuidv7 } from "../../src/ids/uuid-v7.ts";
import { checkAnswersAgainstOpenApi } from "./openapi-conformance.ts";

/**
 * A real server on a real database: PostgreSQL when DATABASE_URL is set (as in CI), otherwise an
 * in-memory PGlite. Every test works inside projects of its own, so suites never see each other's rows.
 */
export interface TestServer {
  app: FastifyInstance;
  db: Database;
  config: Config;
  /** A fresh project with its own API key. */
  project(options?: { seedDefaults?: boolean }): Promise<TestProject>;
  close(): Promise<void>;
}

export interface TestProject {
  id: string;
  userId: string;
  key: string;
  /** `app.inject` with this project's key; `path` is relative to /api. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  /** The same, asserting the status and returning the parsed JSON body. */
  ok<T = any>(method: string, path: string, body?: unknown, status?: number): Promise<T>;
}

export async function openTestDatabase(): Promise<Database> {
  const db = process.env.DATABASE_URL ? await openPostgres(process.env.DATABASE_URL, { poolSize: 4 }) : await openPglite(null);
  await migrate(db);
  return db;
}

export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const db = await openTestDatabase();
  const config = { ...loadConfig({ ...process.env, ...env }), databaseUrl: process.env.DATABASE_URL ?? null, dataDir: "/nonexistent" };
  const app = await buildServer({ config, db }, { logger: false });
  await app.ready();
  checkAnswersAgainstOpenApi(app);
  return {
    app,
    db,
    config,
    async project(options = {}) {
      const account = await db.transaction((tx) =>
        createAccount(tx, { user: { email: `user-${uuidv7()}@test.local` } }, options.seedDefaults ?? true),
      );
      const { key } = await createApiKey(db, account.project.id, account.user.id);
      return projectClient(app, account.project.id, account.user.id, key);
    },
    async close() {
      await app.close();
      await db.close();
    },
  };
}

/**
 * A test file's server and first project, started as the file loads and closed after its tests:
 * `const { server, p } = await serverWithProject();` at the top of the file.
 */
export async function serverWithProject(): Promise<{ server: TestServer; p: TestProject }> {
  const server = await startTestServer();
  afterAll(() => server.close());
  return { server, p: await server.project() };
}

function projectClient(app: FastifyInstance, id: string, userId: string, key: string): TestProject {
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    app.inject({
      method: method as InjectOptions["method"],
      url: `/api${path}`,
      headers: { authorization: `ApiKey ${key}`, ...headers },
      ...(body === undefined ? {} : { payload: body as InjectOptions["payload"] }),
    });
  return {
    id,
    userId,
    key,
    call,
    async ok<T>(method: string, path: string, body?: unknown, status = 200): Promise<T> {
      const res = await call(method, path, body);
      if (res.statusCode !== status) {
        throw new Error(`${method} ${path} → ${res.statusCode} (expected ${status}): ${res.body}`);
      }
      return (res.body ? res.json() : undefined) as T;
    },
  };
}
