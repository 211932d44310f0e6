import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, revokeApiKey } from "../src/accounts/api-keys.ts";
import { openPostgres } from "../src/db/postgres-driver.ts";
import { processTarget, type ProcessTarget } from "./support/process-target.ts";
import { runScript, startServerProcess, type ServerProcess } from "./support/process.ts";
import { startTcpProxy, type TcpProxy } from "./support/tcp-proxy.ts";

/**
 * PostgreSQL going away under running servers: a terminated backend, a cut network, a restart. Two
 * processes on one (empty) database: A connects directly, B through a proxy the test cuts. Each names
 * its connections (application_name), so the test terminates only its own backends. The embedded
 * database lives inside the process and has none of these faults.
 */
const ADMIN = "faults-admin-key";
const RETRIEVE = { application_ref: { slug: "faulty" }, environment_ref: { slug: "production" } };
const tag = randomBytes(4).toString("hex");
const NAME_A = `faults-a-${tag}`;
const NAME_B = `faults-b-${tag}`;
// A's cached keys and references last 1.5 s: the bound when a change goes unheard. B keeps the default.
const A_MAX_AGE_MS = 1500;

const withName = (url: string, name: string) => `${url}${url.includes("?") ? "&" : "?"}application_name=${name}`;

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe.skipIf(!process.env.DATABASE_URL)("database faults (PostgreSQL)", () => {
  let target: ProcessTarget;
  let proxy: TcpProxy;
  let a: ServerProcess;
  let b: ServerProcess;
  let key: string;
  let owner: { project_id: string; user_id: string };
  let variantId: string;

  const call = async (server: ServerProcess, path: string, body: unknown, apiKey = key) => {
    const res = await fetch(`${server.url}/api${path}`, {
      method: "POST",
      headers: { authorization: `ApiKey ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, retryAfter: res.headers.get("retry-after"), json: text ? JSON.parse(text) : undefined };
  };
  const ok = async (server: ServerProcess, path: string, body: unknown) => {
    const res = await call(server, path, body);
    if (res.status !== 200) throw new Error(`POST ${path} → ${res.status}: ${JSON.stringify(res.json)}`);
    return res.json;
  };
  const deployNew = async (server: ServerProcess, prompt: string) => {
    await ok(server, "/applications/revisions/commit", {
      application_revision_commit: { application_variant_id: variantId, message: prompt, data: { parameters: { prompt } } },
    });
    return (await ok(server, "/applications/revisions/deploy", { application_variant_ref: { id: variantId }, environment_ref: { slug: "production" } })).application_revision;
  };
  const served = async (server: ServerProcess) => (await call(server, "/applications/revisions/retrieve", RETRIEVE));
  const ready = async (server: ServerProcess) => (await fetch(`${server.url}/api/health/ready`)).status;
  const terminate = (names: string[]) =>
    target.use((db) => db.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE application_name = ANY($1) AND pg_terminate_backend(pid)", [names],
    ));
  const count = (text: string, needle: string) => text.split(needle).length - 1;
  const newKey = async () => (await target.use((db) => createApiKey(db, owner.project_id, owner.user_id, "faults")));

  beforeAll(async () => {
    target = await processTarget();
    proxy = await startTcpProxy(target.env.DATABASE_URL);
    a = await startServerProcess({
      ...target.env, DATABASE_URL: withName(target.env.DATABASE_URL, NAME_A), TESSERA_ADMIN_KEY: ADMIN, TESSERA_CACHE_MAX_AGE_MS: String(A_MAX_AGE_MS),
    });
    b = await startServerProcess({ ...target.env, DATABASE_URL: withName(proxy.through(target.env.DATABASE_URL), NAME_B) });
    const res = await fetch(`${a.url}/api/admin/simple/accounts/`, {
      method: "POST",
      headers: { authorization: `Access ${ADMIN}`, "content-type": "application/json" },
      body: JSON.stringify({ accounts: { f: { user: { email: `faults-${tag}@test.local` }, options: { create_api_keys: true, return_api_keys: true } } } }),
    });
    expect(res.status).toBe(200);
    key = (await res.json()).accounts.f.api_keys.key;
    [owner] = await target.use((db) => db.query<{ project_id: string; user_id: string }>(
      "SELECT project_id, user_id FROM api_keys WHERE prefix = $1", [key.slice(4, 16)],
    ));
    const app = (await ok(a, "/simple/applications/", { application: { slug: "faulty", data: { parameters: { prompt: "v1" } } } })).application;
    variantId = app.variant_id;
    await ok(a, "/applications/revisions/deploy", { application_variant_ref: { id: variantId }, environment_ref: { slug: "production" } });
  }, 240_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await proxy?.close();
    await target?.dispose();
  });

  it("a terminated listener and pool end nothing: the process says once it lost them, once they are back, and hears changes again", { timeout: 60_000 }, async () => {
    expect((await served(a)).status).toBe(200);
    const killed = await terminate([NAME_A, `${NAME_A} listener`]);
    expect(killed.length).toBeGreaterThanOrEqual(2);

    await expect.poll(() => a.output.stdout.includes("database change listener is back"), { timeout: 20_000 }).toBe(true);
    expect(count(a.output.stdout, "lost the database change listener")).toBe(1);
    expect(count(a.output.stdout, "database change listener is back")).toBe(1);
    expect((await fetch(`${a.url}/api/health`)).status).toBe(200);
    expect((await served(a)).status).toBe(200);
    const listeners = await target.use((db) => db.query("SELECT pid FROM pg_stat_activity WHERE application_name = $1", [`${NAME_A} listener`]));
    expect(listeners).toHaveLength(1);

    // Listening again: a deploy through B reaches A's cache.
    const deployed = await deployNew(b, "after-terminate");
    await expect.poll(async () => (await served(a)).json.application_revision.id, { timeout: 10_000 }).toBe(deployed.id);
    expect(a.output.stderr).not.toMatch(/Unhandled|uncaught/i);
  });

  it("while B cannot reach PostgreSQL it answers 503 with Retry-After; back, it serves what A deployed and refuses what was revoked", { timeout: 90_000 }, async () => {
    const revoked = await newKey();
    // B has the deployment and both keys cached.
    for (let i = 0; i < 3; i++) {
      expect((await served(b)).status).toBe(200);
      expect((await call(b, "/applications/revisions/retrieve", RETRIEVE, revoked.key)).status).toBe(200);
    }
    expect(await ready(b)).toBe(200);

    proxy.cut();
    const down = await call(b, "/applications/query", {});
    expect(down.status).toBe(503);
    expect(down.retryAfter).toBe("2");
    expect(down.json.detail).toMatch(/^Database unavailable: /);
    expect(await ready(b)).toBe(503);
    expect((await fetch(`${b.url}/api/health`)).status).toBe(200);

    // Through A, during B's gap: a new deployment, and the second key revoked (NOTIFY that B cannot hear).
    const deployed = await deployNew(a, "during-the-gap");
    await target.use((db) => revokeApiKey(db, revoked.id));
    proxy.restore();

    await expect.poll(async () => (await served(b)).status, { timeout: 20_000 }).toBe(200);
    expect((await served(b)).json.application_revision.id).toBe(deployed.id);
    const refused = await call(b, "/applications/revisions/retrieve", RETRIEVE, revoked.key);
    expect(refused.status).toBe(401);
    expect(refused.json.detail).toBe("API key has been revoked");
    expect(await ready(b)).toBe(200);
    expect(count(b.output.stdout, "lost the database change listener")).toBe(1);
  });

  it("while only B's listener is away, B caches nothing: a deploy and a revocation through A are served at once", { timeout: 60_000 }, async () => {
    // The previous test's outage must be over for the listener too before it is cut again.
    await expect.poll(() => count(b.output.stdout, "database change listener is back"), { timeout: 20_000 }).toBe(1);
    const revoked = await newKey();
    proxy.cut(`${NAME_B} listener`);
    await expect.poll(() => count(b.output.stdout, "lost the database change listener"), { timeout: 10_000 }).toBe(2);
    for (let i = 0; i < 3; i++) {
      expect((await served(b)).status).toBe(200);
      expect((await call(b, "/applications/revisions/retrieve", RETRIEVE, revoked.key)).status).toBe(200);
    }
    const deployed = await deployNew(a, "listener-away");
    await target.use((db) => revokeApiKey(db, revoked.id));
    // B cannot hear either change, and answers both right away all the same.
    expect((await served(b)).json.application_revision.id).toBe(deployed.id);
    expect((await call(b, "/applications/revisions/retrieve", RETRIEVE, revoked.key)).status).toBe(401);
    expect(count(b.output.stdout, "database change listener is back")).toBe(1);
    proxy.restore();
    await expect.poll(() => count(b.output.stdout, "database change listener is back"), { timeout: 10_000 }).toBe(2);
  });

  it("a key revoked without any notification is refused once the cache's maximum age has passed", { timeout: 30_000 }, async () => {
    const silent = await newKey();
    expect((await call(a, "/applications/revisions/retrieve", RETRIEVE, silent.key)).status).toBe(200);
    // Straight in the table: no process hears of it, only the maximum age ends A's trust in the key.
    await target.use((db) => db.query("UPDATE api_keys SET revoked_at = now() WHERE id = $1", [silent.id]));
    const revokedAt = Date.now();
    await expect.poll(async () => (await call(a, "/applications/revisions/retrieve", RETRIEVE, silent.key)).status, { timeout: 10_000, interval: 100 }).toBe(401);
    // The bound holds (with room for a loaded machine's scheduling): never refused later than it allows.
    expect(Date.now() - revokedAt).toBeLessThan(A_MAX_AGE_MS + 5_000);
  });

  it("readiness fails while migrations are pending", async () => {
    await target.use((db) => db.query("DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations) RETURNING version"))
      .then(async ([row]) => {
        try {
          const res = await fetch(`${a.url}/api/health/ready`);
          expect(res.status).toBe(503);
          expect((await res.json()).detail).toBe(`Migrations pending: ${(row as { version: string }).version} (run npm run migrate, or start a server that applies them)`);
        } finally {
          await target.use((db) => db.query("INSERT INTO schema_migrations (version) VALUES ($1)", [(row as { version: string }).version]));
        }
      });
    expect(await ready(a)).toBe(200);
  });

  it("at startup, waits for PostgreSQL with one line per attempt, then creates the database it names", { timeout: 120_000 }, async () => {
    const name = `tessera_faults_${tag}`;
    const starting = await startTcpProxy(process.env.DATABASE_URL!);
    const url = new URL(starting.through(process.env.DATABASE_URL!));
    url.pathname = `/${name}`;
    url.search = "";
    const dataDir = mkdtempSync(join(tmpdir(), "tessera-faults-"));
    starting.cut();
    const refusedBefore = starting.refused;
    // PostgreSQL comes back after the server's second attempt.
    const restore = setInterval(() => starting.refused >= refusedBefore + 2 && starting.restore(), 20);
    let server: ServerProcess | undefined;
    try {
      server = await startServerProcess({ DATABASE_URL: url.toString(), TESSERA_DATA_DIR: dataDir });
      clearInterval(restore);
      expect(server.output.stderr).toMatch(/^PostgreSQL at .* attempt 2, next in 0\.50 s, giving up after 30 s$/m);
      expect(server.output.stderr).toMatch(/^PostgreSQL at 127\.0\.0\.1:\d+\/tessera_faults_\w+ is not reachable yet \(.*\): attempt 1, next in 0\.25 s, giving up after 30 s$/m);
      expect(server.output.stderr).toContain(`Created the PostgreSQL database "${name}" on 127.0.0.1:${starting.port} (it did not exist).`);
      expect(await ready(server)).toBe(200);
    } finally {
      clearInterval(restore);
      starting.restore();
      await server?.stop();
      await starting.close();
      const admin = await openPostgres(process.env.DATABASE_URL!, { poolSize: 1 });
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).finally(() => admin.close());
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("at startup, gives up after TESSERA_DB_STARTUP_TIMEOUT_MS with one line and exit code 1", { timeout: 60_000 }, async () => {
    const url = new URL(process.env.DATABASE_URL!);
    url.port = String(await freePort());
    const run = await runScript("src/main.ts", [], { DATABASE_URL: url.toString(), TESSERA_DB_STARTUP_TIMEOUT_MS: "1000", PORT: "0" });
    expect(run.code).toBe(1);
    const lines = run.stderr.trim().split("\n");
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines.slice(0, -1).every((l) => /is not reachable yet \(cannot reach PostgreSQL \(ECONNREFUSED\)\): attempt \d+/.test(l))).toBe(true);
    expect(lines.at(-1)).toMatch(/^PostgreSQL at 127\.0\.0\.1:\d+\/\w+ is still unreachable after 1 s \(TESSERA_DB_STARTUP_TIMEOUT_MS\): .*\. Start it, or fix DATABASE_URL\.$/);
  });

  it("a missing database the role may not create: one line saying what to do, exit code 1", { timeout: 60_000 }, async () => {
    const role = `tessera_faults_${tag}`;
    await target.use((db) => db.query(`CREATE ROLE ${role} LOGIN NOCREATEDB`));
    try {
      const url = new URL(process.env.DATABASE_URL!);
      url.username = role;
      url.pathname = `/tessera_faults_missing_${tag}`;
      const run = await runScript("src/main.ts", [], { DATABASE_URL: url.toString(), PORT: "0" });
      expect(run.code).toBe(1);
      expect(run.stderr.trim()).toBe(
        `Database "tessera_faults_missing_${tag}" does not exist on ${url.host} and role "${role}" may not create databases: ` +
          `create it (createdb -h ${url.hostname} -p ${url.port || 5432} tessera_faults_missing_${tag}) or point DATABASE_URL at one that exists.`,
      );
    } finally {
      await target.use((db) => db.query(`DROP ROLE ${role}`));
    }
  });

  it("with TESSERA_WORKERS=2 a lost database restarts no worker; a worker that dies is still replaced", { timeout: 180_000 }, async () => {
    const workersProxy = await startTcpProxy(target.env.DATABASE_URL);
    const cluster = await startServerProcess({ ...target.env, DATABASE_URL: workersProxy.through(target.env.DATABASE_URL), TESSERA_WORKERS: "2" });
    try {
      const workerPids = () => [...cluster.output.stdout.matchAll(/"pid":(\d+)[^\n]*"msg":"Tessera is listening"/g)].map((m) => Number(m[1]));
      await expect.poll(() => workerPids().length, { timeout: 60_000 }).toBe(2);
      workersProxy.cut();
      expect((await call(cluster, "/applications/query", {})).status).toBe(503);
      await new Promise((r) => setTimeout(r, 1000));
      workersProxy.restore();
      await expect.poll(async () => (await call(cluster, "/applications/query", {})).status, { timeout: 20_000 }).toBe(200);
      await expect.poll(() => count(cluster.output.stdout, "database change listener is back"), { timeout: 20_000 }).toBe(2);
      expect(cluster.output.stderr).not.toContain("exited");

      process.kill(workerPids()[0], "SIGKILL");
      await expect.poll(() => cluster.output.stderr, { timeout: 20_000 }).toMatch(/worker \d+ exited \(SIGKILL\); starting another/);
      await expect.poll(() => workerPids().length, { timeout: 60_000 }).toBe(3);
    } finally {
      await cluster.stop();
      await workersProxy.close();
    }
  });
});
