import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServerProcess, type ServerProcess } from "./support/process.ts";

/**
 * Two server processes on one PostgreSQL: a deploy answered by one is served by the other within
 * 100 ms, although the other had the old resolution cached (the cache agrees through NOTIFY).
 */
const ADMIN = "scale-out-admin-key";
const RETRIEVE = { application_ref: { slug: "scaled" }, environment_ref: { slug: "production" } };

describe.skipIf(!process.env.DATABASE_URL)("scale-out: two processes, one PostgreSQL", () => {
  let dataDir: string;
  let a: ServerProcess;
  let b: ServerProcess;
  let key: string;

  const call = async (server: ServerProcess, path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.url}/api${path}`, {
      method: "POST",
      headers: { authorization: `ApiKey ${key}`, "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, etag: res.headers.get("etag"), json: text ? JSON.parse(text) : undefined };
  };
  const ok = async (server: ServerProcess, path: string, body: unknown) => {
    const res = await call(server, path, body);
    if (res.status !== 200) throw new Error(`POST ${path} → ${res.status}: ${JSON.stringify(res.json)}`);
    return res.json;
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "tessera-scale-out-"));
    const env = { DATABASE_URL: process.env.DATABASE_URL, TESSERA_ADMIN_KEY: ADMIN, TESSERA_DATA_DIR: dataDir };
    // One after the other: both would otherwise race to migrate a fresh database.
    a = await startServerProcess(env);
    b = await startServerProcess(env);
    const res = await fetch(`${a.url}/api/admin/simple/accounts/`, {
      method: "POST",
      headers: { authorization: `Access ${ADMIN}`, "content-type": "application/json" },
      body: JSON.stringify({ accounts: { a: { user: { email: `scale-${Date.now()}@test.local` }, options: { create_api_keys: true, return_api_keys: true } } } }),
    });
    expect(res.status).toBe(200);
    key = (await res.json()).accounts.a.api_keys.key;
  }, 120_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("serves a deploy made on A from B within 100 ms, with a new ETag", async () => {
    const app = (await ok(a, "/simple/applications/", { application: { slug: "scaled", data: { parameters: { prompt: "v1" } } } })).application;
    const v1 = (await ok(a, "/applications/revisions/deploy", { application_variant_ref: { id: app.variant_id }, environment_ref: { slug: "production" } })).application_revision;

    // B resolves the environment and caches the answer; the last reads are cache hits.
    let first: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 5; i++) {
      first = await call(b, "/applications/revisions/retrieve", RETRIEVE);
      expect(first.status).toBe(200);
      expect(first.json.application_revision.id).toBe(v1.id);
    }
    const oldTag = first!.etag;
    expect(oldTag).toBeTruthy();
    expect((await call(b, "/applications/revisions/retrieve", RETRIEVE, { "if-none-match": oldTag! })).status).toBe(304);

    const v2 = (await ok(a, "/applications/revisions/commit", {
      application_revision_commit: { application_variant_id: app.variant_id, message: "v2", data: { parameters: { prompt: "v2" } } },
    })).application_revision;
    expect(v2.version).toBe("2");
    const deployed = (await ok(a, "/applications/revisions/deploy", { application_variant_ref: { id: app.variant_id }, environment_ref: { slug: "production" } })).application_revision;
    const deployedAt = performance.now();
    expect(deployed.id).toBe(v2.id);

    // Poll B until it answers v2: the requirement is that the first such answer comes within 100 ms.
    // The deadline below only ends the wait; the assertion is on the delay observed.
    let seen: Awaited<ReturnType<typeof call>> | undefined;
    let delay = Infinity;
    while (performance.now() - deployedAt < 5_000) {
      const res = await call(b, "/applications/revisions/retrieve", RETRIEVE, { "if-none-match": oldTag! });
      if (res.status === 200 && res.json.application_revision.id === v2.id) {
        delay = performance.now() - deployedAt;
        seen = res;
        break;
      }
      expect(res.status).toBe(304);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect(seen, "B never served v2").toBeDefined();
    expect(delay).toBeLessThan(100);
    expect(seen!.etag).toBeTruthy();
    expect(seen!.etag).not.toBe(oldTag);
    expect((await call(b, "/applications/revisions/retrieve", RETRIEVE, { "if-none-match": seen!.etag! })).status).toBe(304);
    expect((await call(a, "/applications/revisions/retrieve", RETRIEVE)).etag).toBe(seen!.etag);
  }, 60_000);
});
