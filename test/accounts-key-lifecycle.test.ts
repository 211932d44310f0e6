import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, uniqueSlug } from "../src/accounts/accounts.ts";
import { checkApiKey } from "../src/accounts/api-keys.ts";
import { migrate } from "../src/db/migrate.ts";
import { runScript, startServerProcess } from "./support/process.ts";
import { processTarget, type ProcessTarget } from "./support/process-target.ts";
import { startTestServer, type TestProject, type TestServer } from "./support/server.ts";

const DAY = 86_400_000;

describe("API keys over HTTP: a project's own keys at /api/keys/", () => {
  let server: TestServer;
  let p: TestProject;
  beforeAll(async () => {
    server = await startTestServer();
    p = await server.project();
  });
  afterAll(() => server.close());

  /** GET /api/health needs no key: a route under the project's key answers 200 or the 401 of that key. */
  const use = async (key: string) => {
    const res = await server.app.inject({ method: "GET", url: "/api/keys/", headers: { authorization: `ApiKey ${key}` } });
    return { status: res.statusCode, detail: res.statusCode === 200 ? undefined : res.json().detail };
  };

  it("lists the project's keys without secrets, creates one (shown once) and revokes it", async () => {
    const [ownPrefix, secret] = p.key.replace(/^tsk_/, "").split(".");
    const before = await p.ok("GET", "/keys/");
    expect(before).toEqual([expect.objectContaining({ prefix: ownPrefix, status: "active", expiration_date: null, revoked_at: null })]);
    expect(JSON.stringify(before)).not.toContain(secret);

    const created = await p.call("POST", "/keys/", { name: "ci", expiration_date: "30d" });
    expect(created.statusCode, created.body).toBe(200);
    expect(created.headers["content-type"]).toMatch(/^application\/json/);
    const key: string = created.json();
    expect(key).toMatch(/^tsk_[A-Za-z0-9_-]{12}\.[A-Za-z0-9_-]{32,}$/);
    expect(await use(key)).toEqual({ status: 200, detail: undefined });

    const listed = (await p.ok("GET", "/keys/")).find((k: any) => k.name === "ci");
    expect(listed).toMatchObject({ prefix: key.slice(4, 16), status: "active", revoked_at: null, last_used_at: null });
    expect(Math.abs(Date.parse(listed.expiration_date) - (Date.now() + 30 * DAY))).toBeLessThan(60_000);

    // The key was accepted a moment ago (cached): revocation must still take effect on the next request.
    expect(await p.ok("DELETE", `/keys/${key.slice(0, 16)}`)).toEqual({ message: "API key revoked" });
    expect(await use(key)).toEqual({ status: 401, detail: "API key has been revoked" });
    expect((await p.ok("GET", "/keys/")).find((k: any) => k.name === "ci")).toMatchObject({ status: "revoked", revoked_at: expect.any(String) });
    expect(await use(p.key)).toEqual({ status: 200, detail: undefined });
  });

  it("creates a key without a body, and revokes by bare prefix or id", async () => {
    const res = await server.app.inject({ method: "POST", url: "/api/keys/", headers: { authorization: `ApiKey ${p.key}` } });
    expect(res.statusCode, res.body).toBe(200);
    const key: string = res.json();
    const info = (await p.ok("GET", "/keys/")).find((k: any) => k.prefix === key.slice(4, 16));
    expect(info).toMatchObject({ name: null, expiration_date: null, status: "active" });
    await p.ok("DELETE", `/keys/${info.id}`);
    expect(await use(key)).toEqual({ status: 401, detail: "API key has been revoked" });
    // Revoking again changes nothing.
    await p.ok("DELETE", `/keys/${key.slice(4, 16)}`);
  });

  it("an expired key is refused with 401 'expired', even one accepted moments before", async () => {
    const expiry = new Date(Date.now() + 1_500).toISOString();
    const key: string = await p.ok("POST", "/keys/", { name: "short", expiration_date: expiry });
    expect((await use(key)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Date.parse(expiry) - Date.now() + 50));
    expect(await use(key)).toEqual({ status: 401, detail: "API key has expired" });
    expect((await p.ok("GET", "/keys/")).find((k: any) => k.name === "short")).toMatchObject({ status: "expired", expiration_date: expiry });
  });

  it("refuses a bad expiry with 422 and another project's key with 404", async () => {
    for (const expiration_date of ["soon", "2001-01-01", "0d", "2027-13-45"]) {
      const res = await p.call("POST", "/keys/", { expiration_date });
      expect(res.statusCode, expiration_date).toBe(422);
      expect(res.json().detail[0]).toMatchObject({ loc: ["body", "expiration_date"], msg: expect.stringContaining("expir") });
    }
    // An unknown field is ignored (as the reference's models do) and named, never obeyed.
    const extra = await p.call("POST", "/keys/", { name: "x", scope: "admin" });
    expect(extra.statusCode).toBe(200);
    expect(extra.headers["x-tessera-ignored-fields"]).toBe("body.scope");

    const other = await server.project();
    const res = await p.call("DELETE", `/keys/${other.key.slice(0, 16)}`);
    expect(res.statusCode).toBe(404);
    expect(res.json().detail).toBe(`API key ${other.key.slice(0, 16)} not found in this project`);
    expect(await use(other.key)).toEqual({ status: 200, detail: undefined });
    expect((await p.call("DELETE", "/keys/nonsense")).statusCode).toBe(404);
    expect(JSON.stringify(await p.ok("GET", "/keys/"))).not.toContain(other.key.slice(4, 16));
  });
});

describe("tessera key create|list|revoke", () => {
  let target: ProcessTarget;
  let slug: string;
  beforeAll(async () => {
    target = await processTarget();
    slug = uniqueSlug("keys");
    await target.use(async (db) => {
      await migrate(db);
      await db.transaction((tx) => createAccount(tx, { user: { email: `${slug}@test.local` }, project: { name: "Keys", slug } }));
    });
  });
  afterAll(() => target.dispose());

  const tessera = (...args: string[]) => runScript("bin/tessera.ts", args, target.env);
  const list = async () => {
    const run = await tessera("key", "list", "--project", slug, "--json");
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(run.stdout).keys as any[];
  };

  it("creates a key with --expires, lists it, revokes it; the server refuses it with the reason", async () => {
    const created = await tessera("key", "create", "--project", slug, "--name", "deploy", "--expires", "30d");
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toMatch(/valid until \d{4}-\d\d-\d\dT/);
    const key = created.stdout.trim();
    const dated = await tessera("key", "create", "--project", slug, "--name", "dated", "--expires", "2999-01-31");
    expect(dated.code, dated.stderr).toBe(0);

    const keys = await list();
    expect(keys.map((k) => [k.name, k.status])).toEqual([["deploy", "active"], ["dated", "active"]]);
    expect(keys[1].expiration_date).toBe("2999-01-31T00:00:00.000Z");
    const table = await tessera("key", "list", "--project", slug);
    expect(table.stdout).toMatch(new RegExp(`^PREFIX\\s+STATUS\\s+CREATED\\s+EXPIRES\\s+NAME\\n${key.slice(0, 16)}\\s+active\\s`));
    expect(table.stdout).not.toContain(key.split(".")[1]);

    // On PostgreSQL the CLI revokes while the server runs (the server was told through NOTIFY);
    // the embedded database belongs to one process, so there the server starts afterwards.
    const live = process.env.DATABASE_URL ? await startServerProcess(target.env) : null;
    const get = async (server: { url: string }, k: string) => {
      const res = await fetch(`${server.url}/api/keys/`, { headers: { authorization: `ApiKey ${k}` } });
      return { status: res.status, detail: res.ok ? undefined : ((await res.json()) as { detail: string }).detail };
    };
    try {
      if (live) expect((await get(live, key)).status).toBe(200);
      const revoked = await tessera("key", "revoke", key.slice(0, 16));
      expect(revoked.code, revoked.stderr).toBe(0);
      expect(revoked.stderr).toBe(`Revoked API key ${key.slice(0, 16)}.\n`);
      expect((await list()).map((k) => k.status)).toEqual(["revoked", "active"]);
      const server = live ?? (await startServerProcess(target.env));
      try {
        expect(await get(server, key)).toEqual({ status: 401, detail: "API key has been revoked" });
      } finally {
        if (!live) await server.stop();
      }
    } finally {
      await live?.stop();
    }
    expect(await target.use((db) => checkApiKey(db, key))).toBe("revoked");
  }, 120_000);

  it("exits 2 saying why for a bad --expires, an unknown key or a missing argument", async () => {
    const cases: [string[], RegExp][] = [
      [["key", "create", "--project", slug, "--expires", "tomorrow"], /--expires: expiry must be a duration such as 30d/],
      [["key", "create", "--project", slug, "--expires", "2001-01-01"], /--expires: expiry must lie in the future/],
      [["key", "revoke", "tsk_AAAAAAAAAAAA"], /No API key "tsk_AAAAAAAAAAAA"/],
      [["key", "revoke"], /name exactly one key/],
      [["key", "list"], /--project <slug> is required/],
    ];
    for (const [args, message] of cases) {
      const run = await tessera(...args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stdout).toBe("");
    }
  }, 120_000);
});
