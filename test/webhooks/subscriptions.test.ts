import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestProject, type TestServer } from "../support/server.ts";
import { WEBHOOK_TEST_ENV } from "./receiver.ts";

let server: TestServer;
let strict: TestServer;
let p: TestProject;

beforeAll(async () => {
  server = await startTestServer(WEBHOOK_TEST_ENV);
  strict = await startTestServer({ TESSERA_SECRET_KEY: "strict-key", TESSERA_WEBHOOK_MAX_SUBSCRIPTIONS: "2" });
  p = await server.project();
});
afterAll(async () => {
  await server.close();
  await strict.close();
});

const create = (project: TestProject, subscription: Record<string, unknown>) =>
  project.call("POST", "/webhooks/subscriptions/", { subscription });

const hookData = {
  url: "https://example.com/hook", event_types: ["environments.revisions.committed"], headers: { "X-Team": "a" },
};

describe("webhook subscriptions", () => {
  it("creates, fetches, edits, stops, starts and deletes in the reference's shapes", async () => {
    const created = await p.ok("POST", "/webhooks/subscriptions/", {
      subscription: {
        name: "deploys", description: "cache busting", tags: { team: "a" },
        data: hookData,
      },
    });
    expect(created.count).toBe(1);
    const sub = created.subscription;
    expect(sub).toMatchObject({
      name: "deploys", description: "cache busting", tags: { team: "a" }, flags: { is_active: true },
      data: hookData,
    });
    expect(sub.secret).toMatch(/^[A-Za-z0-9]{32}$/);

    const fetched = await p.ok("GET", `/webhooks/subscriptions/${sub.id}`);
    expect(fetched.subscription.secret).toBe(sub.secret);

    const edited = await p.ok("PUT", `/webhooks/subscriptions/${sub.id}`, {
      subscription: {
        id: sub.id, name: "renamed",
        data: { url: "https://example.com/other", payload_fields: { e: "$.event.event_type" } },
      },
    });
    expect(edited.subscription).toMatchObject({ name: "renamed", data: { url: "https://example.com/other" } });
    expect(edited.subscription.data.event_types).toBeUndefined();
    expect(edited.subscription.secret).toBe(sub.secret);

    const rotated = await p.ok("PUT", `/webhooks/subscriptions/${sub.id}`, {
      subscription: { name: "renamed", data: { url: "https://example.com/other" }, secret: "new-secret-value" },
    });
    expect(rotated.subscription.secret).toBe("new-secret-value");

    expect((await p.ok("POST", `/webhooks/subscriptions/${sub.id}/stop`)).subscription.flags.is_active).toBe(false);
    expect((await p.ok("POST", `/webhooks/subscriptions/${sub.id}/start`)).subscription.flags.is_active).toBe(true);
    expect((await p.call("DELETE", `/webhooks/subscriptions/${sub.id}`)).statusCode).toBe(204);
    expect((await p.call("GET", `/webhooks/subscriptions/${sub.id}`)).statusCode).toBe(404);
    expect((await p.call("DELETE", `/webhooks/subscriptions/${sub.id}`)).statusCode).toBe(404);
  });

  it("stores the secret encrypted and never returns it from a query", async () => {
    const sub = (await p.ok("POST", "/webhooks/subscriptions/", {
      subscription: {
        name: "sealed", tags: { sealed: true }, data: { url: "https://example.com/s" }, secret: "plain-text-secret-123",
      },
    })).subscription;
    const [row] = await server.db.query<{ encrypted_secret: Uint8Array; data: unknown }>(
      "SELECT encrypted_secret, data FROM webhook_subscriptions WHERE id = $1", [sub.id],
    );
    expect(Buffer.from(row.encrypted_secret).toString("latin1")).not.toContain("plain-text-secret-123");
    expect(JSON.stringify(row.data)).not.toContain("plain-text-secret-123");
    const queried = await p.ok("POST", "/webhooks/subscriptions/query", { subscription: { tags: { sealed: true } } });
    expect(queried.count).toBe(1);
    expect(queried.subscriptions[0].secret).toBeUndefined();
    expect(JSON.stringify(queried)).not.toContain("plain-text-secret-123");
  });

  it("queries by a part of the name, by tags, and a window at a time", async () => {
    const q = await server.project();
    for (const name of ["Hook-A x", "Hook-B x", "Other"]) {
      const subscription = { name, tags: { k: name[5] ?? "o" }, data: { url: "https://example.com/h" } };
      await q.ok("POST", "/webhooks/subscriptions/", { subscription });
    }
    expect((await q.ok("POST", "/webhooks/subscriptions/query", {})).count).toBe(3);
    expect((await q.ok("POST", "/webhooks/subscriptions/query", { subscription: { name: "hook-" } })).count).toBe(2);
    const byTag = await q.ok("POST", "/webhooks/subscriptions/query", { subscription: { tags: { k: "A" } } });
    expect(byTag.subscriptions.map((s: any) => s.name)).toEqual(["Hook-A x"]);
    const first = await q.ok("POST", "/webhooks/subscriptions/query", { windowing: { limit: 2 } });
    expect(first.count).toBe(2);
    const windowing = { limit: 2, next: first.subscriptions[1].id };
    const rest = await q.ok("POST", "/webhooks/subscriptions/query", { windowing });
    expect(rest.subscriptions.map((s: any) => s.name)).toEqual(["Hook-A x"]);
    // Another project sees none of them.
    expect((await p.call("GET", `/webhooks/subscriptions/${first.subscriptions[0].id}`)).statusCode).toBe(404);
  });

  it("answers 400 for authorization mode without a secret and for a body id that is not the path's", async () => {
    const res = await create(p, { data: { url: "https://example.com/a", auth_mode: "authorization" } });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(/needs a secret/);
    const body = { subscription: { data: { url: "https://example.com/a" } } };
    const sub = (await p.ok("POST", "/webhooks/subscriptions/", body)).subscription;
    const mismatch = await p.call("PUT", `/webhooks/subscriptions/${sub.id}`, {
      subscription: { id: "0190a3c4-0000-7000-8000-000000000000", data: { url: "https://example.com/a" } },
    });
    expect(mismatch.statusCode).toBe(400);
  });

  it("refuses http, loopback and private addresses, credentials and bad headers unless allowed", async () => {
    const s = await strict.project();
    const refused = [
      "http://example.com/h", "https://127.0.0.1/h", "https://localhost/h", "https://10.0.0.8/h", "https://[::1]/h",
    ];
    for (const url of refused) {
      const res = await create(s, { data: { url } });
      expect(res.statusCode, url).toBe(422);
      expect(JSON.stringify(res.json().detail)).toMatch(/TESSERA_ALLOW_PRIVATE_HOOKS/);
    }
    expect((await create(s, { data: { url: "https://u:p@example.com/h" } })).statusCode).toBe(422);
    expect((await create(s, { data: { url: "not a url" } })).statusCode).toBe(422);
    const h = "https://example.com/h";
    expect((await create(s, { data: { url: h, headers: { "X-Bad": "a\r\nb" } } })).statusCode).toBe(422);
    expect((await create(s, { data: { url: h, event_types: ["nope.happened"] } })).statusCode).toBe(422);
    expect((await create(p, { data: { url: "http://127.0.0.1:9/h" } })).statusCode).toBe(200);
  });

  it("holds a project to TESSERA_WEBHOOK_MAX_SUBSCRIPTIONS", async () => {
    const s = await strict.project();
    for (let i = 0; i < 2; i++) {
      expect((await create(s, { data: { url: "https://example.com/h" } })).statusCode).toBe(200);
    }
    const over = await create(s, { data: { url: "https://example.com/h" } });
    expect(over.statusCode).toBe(409);
    expect(over.json().detail).toMatch(/TESSERA_WEBHOOK_MAX_SUBSCRIPTIONS=2/);
  });

  it("answers nothing a client sends with a 500, and writes nothing when it refuses", async () => {
    const q = await server.project();
    const url = "https://example.com/h";
    const deep = JSON.parse("[".repeat(100) + "]".repeat(100));
    const manyHeaders = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`x-${i}`, "v"]));
    const badFilter = { delivery: { subscription_id: "x", status: { code: 5 } } };
    const nasty: [string, string, unknown][] = [
      ["NUL in a name", "/webhooks/subscriptions/", { subscription: { name: "a\u0000b", data: { url } } }],
      ["NUL in tags", "/webhooks/subscriptions/", { subscription: { tags: { x: "a\u0000" }, data: { url } } }],
      ["NUL in a URL", "/webhooks/subscriptions/", { subscription: { data: { url: "https://exa\u0000mple.com/" } } }],
      ["lone surrogate", "/webhooks/subscriptions/", { subscription: { meta: { x: "\ud800" }, data: { url } } }],
      ["deep payload_fields", "/webhooks/subscriptions/", { subscription: { data: { url, payload_fields: deep } } }],
      ["long name", "/webhooks/subscriptions/", { subscription: { name: "n".repeat(10_000), data: { url } } }],
      ["many headers", "/webhooks/subscriptions/", { subscription: { data: { url, headers: manyHeaders } } }],
      ["NUL in a secret", "/webhooks/subscriptions/", { subscription: { data: { url }, secret: "a\u0000b" } }],
      ["no data", "/webhooks/subscriptions/", { subscription: { name: "x" } }],
      ["bad cursor", "/webhooks/subscriptions/query", { windowing: { next: "not-a-uuid" } }],
      ["NUL in a name filter", "/webhooks/subscriptions/query", { subscription: { name: "\u0000" } }],
      ["bad delivery filter", "/webhooks/deliveries/query", badFilter],
      ["delivery of another project's subscription", "/webhooks/deliveries", {
        delivery: { status: { code: "200" }, subscription_id: crypto.randomUUID(), event_id: crypto.randomUUID() },
      }],
      ["test with both", "/webhooks/subscriptions/test", {
        subscription_id: crypto.randomUUID(), subscription: { data: { url } },
      }],
    ];
    for (const [name, path, body] of nasty) {
      const res = await q.call("POST", path, body);
      expect(res.statusCode, `${name}: ${res.body.slice(0, 300)}`).toBeLessThan(500);
      if (res.statusCode >= 400) expect(res.json(), name).toHaveProperty("detail");
    }
    const stored = await q.ok("POST", "/webhooks/subscriptions/query", {});
    expect(stored.subscriptions.every((s: any) => !JSON.stringify(s).includes("\\u0000"))).toBe(true);
  });
});
