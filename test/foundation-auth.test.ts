import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, revokeApiKey } from "../src/accounts/api-keys.ts";
import { requireApiKey } from "../src/http/authentication.ts";
import { registerErrorHandling } from "../src/http/error-handler.ts";
import { startTestServer, type TestProject, type TestServer } from "./support/server.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await startTestServer();
  project = await server.project();
});
afterAll(() => server.close());

/** The answer to a request under /api that needs a key: 404 (known key, unknown route) or 401 with a detail. */
async function withKey(authorization?: string) {
  const res = await server.app.inject({
    method: "GET",
    url: "/api/foundation/needs-a-key",
    headers: authorization === undefined ? {} : { authorization },
  });
  return { status: res.statusCode, detail: res.json().detail as string };
}

describe("API keys", () => {
  it("a valid key passes", async () => {
    expect(await withKey(`ApiKey ${project.key}`)).toEqual({ status: 404, detail: "Not found: GET /api/foundation/needs-a-key" });
    // The scheme is case-insensitive and surrounding spaces do not matter.
    expect((await withKey(`  apikey ${project.key} `)).status).toBe(404);
  });

  it.each([
    ["missing", undefined, /^Missing Authorization header: send 'Authorization: ApiKey <key>'$/],
    ["another scheme", "Bearer abc", /^Malformed Authorization header: expected 'ApiKey <key>'$/],
    ["no key after the scheme", "ApiKey", /^Malformed Authorization header/],
    ["extra words", "ApiKey tsk_a.b c", /^Malformed Authorization header/],
    ["not one of our keys", "ApiKey sk-1234", /^Malformed API key/],
    ["unknown", "ApiKey tsk_AAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB", /^Unknown API key$/],
  ])("%s → 401 saying so", async (_name, header, detail) => {
    const res = await withKey(header);
    expect(res.status).toBe(401);
    expect(res.detail).toMatch(detail);
  });

  it("a known prefix with the wrong secret is unknown", async () => {
    const [prefix] = project.key.split(".");
    expect(await withKey(`ApiKey ${prefix}.${"x".repeat(32)}`)).toEqual({ status: 401, detail: "Unknown API key" });
  });

  it("a revoked key → 401 'revoked'", async () => {
    const { id, key } = await createApiKey(server.db, project.id, project.userId, "to revoke");
    expect((await withKey(`ApiKey ${key}`)).status).toBe(404);
    await revokeApiKey(server.db, id);
    expect(await withKey(`ApiKey ${key}`)).toEqual({ status: 401, detail: "API key has been revoked" });
    // Other keys of the project are untouched.
    expect((await withKey(`ApiKey ${project.key}`)).status).toBe(404);
  });

  it("an expired key → 401 'expired'", async () => {
    const { key } = await createApiKey(server.db, project.id, project.userId, "expired", new Date(Date.now() - 1000).toISOString());
    expect(await withKey(`ApiKey ${key}`)).toEqual({ status: 401, detail: "API key has expired" });
  });

  it("keys are stored only as hashes", async () => {
    const { id, key } = await createApiKey(server.db, project.id, project.userId, "hashed");
    const [row] = await server.db.query<{ row: string }>("SELECT row_to_json(k)::text AS row FROM api_keys k WHERE id = $1", [id]);
    expect(row.row).not.toContain(key.split(".")[1]);
  });

  it("health and the documentation need no key", async () => {
    for (const url of ["/api/health", "/api/openapi.json", "/api/docs"]) {
      const res = await server.app.inject({ method: "GET", url });
      expect(res.statusCode, url).toBe(200);
    }
  });
});

describe("requireApiKey", () => {
  it("hands the key's project to the routes it guards", async () => {
    const app = Fastify({ logger: false });
    registerErrorHandling(app);
    await app.register(async (guarded) => {
      requireApiKey(guarded, server.db);
      guarded.get("/whoami", async (request) => request.scope);
    });
    expect((await app.inject({ method: "GET", url: "/whoami", headers: { authorization: `ApiKey ${project.key}` } })).json()).toEqual({
      projectId: project.id,
      userId: project.userId,
    });
    const anonymous = await app.inject({ method: "GET", url: "/whoami" });
    expect(anonymous.statusCode).toBe(401);
    await app.close();
  });
});
