import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkApiKey } from "../src/accounts/api-keys.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

const ADMIN = "admin-secret-for-tests";
const ROUTE = "/api/admin/simple/accounts/";
const unique = () => crypto.randomUUID().slice(0, 8);

let server: TestServer;
let disabled: TestServer;

beforeAll(async () => {
  server = await startTestServer({ TESSERA_ADMIN_KEY: ADMIN });
  disabled = await startTestServer({ TESSERA_ADMIN_KEY: "" });
});
afterAll(async () => {
  await server.close();
  await disabled.close();
});

const provision = (body: unknown, authorization: string | null = `Access ${ADMIN}`, target = server) =>
  target.app.inject({ method: "POST", url: ROUTE, headers: authorization ? { authorization } : {}, payload: body as object });

const oneAccount = (options: object = {}) => {
  const id = unique();
  return {
    options,
    accounts: {
      alice: {
        user: { email: `alice-${id}@test.local`, name: "Alice" },
        organization: { name: "Alice's org", slug: `alice-org-${id}` },
        workspace: { name: "Main", slug: "main" },
        project: { name: "Alice's project", slug: `alice-${id}` },
      },
    },
  };
};

describe("admin provisioning authorisation", () => {
  it("401 without the admin key, with a wrong one, or with an API key", async () => {
    const cases: [string | null, RegExp][] = [
      [null, /^Missing Authorization header: send 'Authorization: Access <admin key>'$/],
      ["Access", /^Malformed Authorization header/],
      ["Access wrong-key", /^Unknown admin key$/],
      [`Access ${ADMIN}x`, /^Unknown admin key$/],
      [`ApiKey ${ADMIN}`, /^Malformed Authorization header: expected 'Access <admin key>'$/],
      [`Bearer ${ADMIN}`, /^Malformed Authorization header/],
    ];
    for (const [authorization, detail] of cases) {
      const res = await provision(oneAccount(), authorization);
      expect(res.statusCode, String(authorization)).toBe(401);
      expect(res.json().detail).toMatch(detail);
    }
  });

  it("404 when TESSERA_ADMIN_KEY is not set, whatever the request", async () => {
    for (const authorization of [null, `Access ${ADMIN}`]) {
      const res = await provision(oneAccount(), authorization, disabled);
      expect(res.statusCode).toBe(404);
      expect(res.json().detail).toBe(`Not found: POST ${ROUTE}`);
    }
  });

  it("is not in the OpenAPI document when disabled, and is when enabled", async () => {
    const paths = async (target: TestServer) => Object.keys((await target.app.inject({ method: "GET", url: "/api/openapi.json" })).json().paths);
    expect(await paths(server)).toContain(ROUTE);
    expect(await paths(disabled)).not.toContain(ROUTE);
  });
});

describe("POST /admin/simple/accounts/", () => {
  it("creates user, organization, workspace and project, and returns a working API key", async () => {
    const body = oneAccount({ create_api_keys: true, return_api_keys: true });
    const res = await provision(body);
    expect(res.statusCode).toBe(200);
    const { accounts, errors } = res.json();
    expect(errors).toBeNull();
    const alice = accounts.alice;
    const slug = body.accounts.alice.project.slug;
    expect(alice.user).toMatchObject({ email: body.accounts.alice.user.email, name: "Alice", id: expect.any(String) });
    expect(alice.organizations[body.accounts.alice.organization.slug]).toMatchObject({ name: "Alice's org" });
    expect(alice.workspaces.main).toMatchObject({ name: "Main" });
    expect(alice.projects[slug]).toMatchObject({ name: "Alice's project", slug, id: expect.any(String) });
    expect(alice.api_keys.key).toMatch(/^tsk_/);

    // The key authenticates requests, in the new project.
    const owner = await checkApiKey(server.db, alice.api_keys.key);
    expect(owner).toMatchObject({ projectId: alice.projects[slug].id, userId: alice.user.id });
    const authed = await server.app.inject({ method: "GET", url: "/api/admin-test/unknown", headers: { authorization: `ApiKey ${alice.api_keys.key}` } });
    expect(authed.statusCode).toBe(404); // past authentication: only the route is unknown
    const anonymous = await server.app.inject({ method: "GET", url: "/api/admin-test/unknown", headers: { authorization: "ApiKey tsk_AAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB" } });
    expect(anonymous.statusCode).toBe(401);
  });

  it("keeps keys to itself unless return_api_keys is set", async () => {
    const created = (await provision(oneAccount({ create_api_keys: true }))).json();
    expect(created.accounts.alice.api_keys).toBeUndefined();
    const project = Object.values(created.accounts.alice.projects)[0] as { id: string };
    expect(await server.db.query("SELECT count(*)::int AS n FROM api_keys WHERE project_id = $1", [project.id])).toEqual([{ n: 1 }]);

    const none = (await provision(oneAccount())).json();
    const bare = Object.values(none.accounts.alice.projects)[0] as { id: string };
    expect(await server.db.query("SELECT count(*)::int AS n FROM api_keys WHERE project_id = $1", [bare.id])).toEqual([{ n: 0 }]);
  });

  it("names the keys asked for in api_keys", async () => {
    const body = oneAccount({ return_api_keys: true }) as ReturnType<typeof oneAccount> & { accounts: { alice: { api_keys?: object[] } } };
    body.accounts.alice.api_keys = [{ name: "ci" }, { name: "notebook" }];
    const res = await provision(body);
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.json().accounts.alice.api_keys).sort()).toEqual(["key", "notebook"]);
  });

  it("fills in defaults from the email alone", async () => {
    const email = `bob-${unique()}@test.local`;
    const res = await provision({ accounts: { bob: { user: { email } } }, options: { create_api_keys: true, return_api_keys: true } });
    expect(res.statusCode).toBe(200);
    const bob = res.json().accounts.bob;
    expect(Object.keys(bob.organizations)).toHaveLength(1);
    expect(Object.keys(bob.projects)).toHaveLength(1);
    expect(await checkApiKey(server.db, bob.api_keys.key)).toMatchObject({ projectId: (Object.values(bob.projects)[0] as { id: string }).id });
  });

  it("creates all accounts of a request or none (409 on a taken email)", async () => {
    const first = oneAccount();
    expect((await provision(first)).statusCode).toBe(200);

    const taken = first.accounts.alice.user.email.toUpperCase();
    const fresh = `carol-${unique()}@test.local`;
    const res = await provision({ accounts: { carol: { user: { email: fresh } }, again: { user: { email: taken } } } });
    expect(res.statusCode).toBe(409);
    expect(res.json().detail).toMatch(/already exists/);
    expect(await server.db.query("SELECT 1 FROM users WHERE email = $1", [fresh])).toEqual([]);
  });

  it("dry_run validates and creates nothing", async () => {
    const body = oneAccount({ dry_run: true, create_api_keys: true, return_api_keys: true });
    const res = await provision(body);
    expect(res.statusCode).toBe(200);
    expect(res.json().accounts.alice.user.email).toBe(body.accounts.alice.user.email);
    expect(await server.db.query("SELECT 1 FROM users WHERE email = $1", [body.accounts.alice.user.email])).toEqual([]);
  });

  it("ignores fields the reference does not know, naming them in a header", async () => {
    const body = oneAccount();
    const res = await provision({ ...body, accounts: { alice: { ...body.accounts.alice, user: { ...body.accounts.alice.user, password: "x" } } } });
    expect(res.statusCode).toBe(200);
    expect(res.headers["x-tessera-ignored-fields"]).toBe("body.accounts.alice.user.password");
  });
});
