import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestServer, type TestProject, type TestServer } from "../support/server.ts";
import { Receiver, WEBHOOK_TEST_ENV, type Received } from "./receiver.ts";

let server: TestServer;
let receiver: Receiver;
let p: TestProject;

beforeAll(async () => {
  server = await startTestServer(WEBHOOK_TEST_ENV);
  receiver = await new Receiver().start();
});
afterAll(async () => {
  await server.close();
  await receiver.close();
});
beforeEach(async () => {
  p = await server.project();
  receiver.received.length = 0;
  receiver.respond = () => ({});
});

const completion = {
  uri: "agenta:builtin:completion:v0",
  parameters: { prompt: { messages: [{ role: "user", content: "{{q}}" }] } },
};
const createApp = async (slug: string) =>
  (await p.ok("POST", "/simple/applications/", { application: { slug, data: completion } })).application;
const deployTo = (env: string, ref: Record<string, unknown>) =>
  p.ok("POST", "/applications/revisions/deploy", { ...ref, environment_ref: { slug: env } });

async function subscribe(data: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const sub = (await p.ok("POST", "/webhooks/subscriptions/", {
    subscription: { name: "receiver", tags: { t: 1 }, data: { url: receiver.url, ...data }, ...extra },
  })).subscription;
  receiver.secret = sub.secret;
  return sub;
}

const ofType = (type: string) => (r: Received) => r.headers["x-agenta-event-type"] === type;

describe("events delivered to a subscriber", () => {
  it("sends testsets.revisions.committed, signed, with the reference's headers and context", async () => {
    const sub = await subscribe({ event_types: ["testsets.revisions.committed"] });
    const body = { testset: { slug: "caps", data: { testcases: [{ data: { a: 1 } }] } } };
    const ts = (await p.ok("POST", "/simple/testsets/", body)).testset;
    const [first, second] = await receiver.waitFor(2);
    for (const got of [first, second]) {
      expect(got.signed).toBe(true);
      expect(got.headers["content-type"]).toBe("application/json");
      expect(got.headers["user-agent"]).toMatch(/Webhook\/1\.0/);
      expect(got.headers["x-agenta-event-type"]).toBe("testsets.revisions.committed");
      expect(got.headers["idempotency-key"]).toBe(got.headers["x-agenta-delivery-id"]);
      expect(got.headers["x-agenta-event-id"]).toBe(got.body.event.event_id);
      // The body is JSON with sorted keys and no spaces: what the signature covers.
      expect(got.raw).toBe(JSON.stringify(sortDeep(got.body)));
    }
    // The simple create commits an empty version 0, then the data: two events. A subscriber takes several
    // deliveries at once, so they may arrive in either order.
    const version = (r: Received) => r.body.event.attributes.references.testset_revision.version;
    expect([first, second].map(version).sort()).toEqual(["0", "1"]);
    const last = [first, second].find((r) => version(r) === "1")!.body;
    expect(last.scope).toEqual({ project_id: p.id });
    expect(last.subscription).toMatchObject({ id: sub.id, name: "receiver", tags: { t: 1 } });
    expect(last.subscription.data).toBeUndefined();
    expect(last.event).toMatchObject({
      event_type: "testsets.revisions.committed",
      attributes: {
        user_id: p.userId,
        references: {
          testset: { id: ts.id, slug: "caps" },
          testset_variant: { id: ts.variant_id },
          testset_revision: { id: ts.revision_id, version: "1" },
        },
      },
    });
    expect(last.event.timestamp).toBe(last.event.created_at);
  });

  it("sends workflows.revisions.committed for applications and evaluators, and only the types subscribed", async () => {
    await subscribe({ event_types: ["workflows.revisions.committed"] });
    const app = await createApp("qa");
    await p.ok("POST", "/applications/revisions/commit", {
      application_revision_commit: { application_variant_id: app.variant_id, message: "tune", data: completion },
    });
    const got = await receiver.waitFor(3);
    expect(got.every(ofType("workflows.revisions.committed"))).toBe(true);
    expect(got[2].body.event.attributes).toMatchObject({
      message: "tune", references: { workflow: { id: app.id, slug: "qa" }, workflow_variant: { id: app.variant_id } },
    });
    const evaluator = (await p.ok("POST", "/simple/evaluators/", {
      evaluator: {
        slug: "exact", data: { uri: "agenta:builtin:auto_exact_match:v0", parameters: { correct_answer_key: "a" } },
      },
    })).evaluator;
    const all = await receiver.waitFor(5);
    expect(all[4].headers["x-agenta-event-type"]).toBe("workflows.revisions.committed");
    expect(all[4].body.event.attributes.references.workflow).toEqual({ id: evaluator.id, slug: "exact" });
    // Environment commits and testsets are not what it asked for.
    await deployTo("staging", { application_ref: { id: app.id } });
    await p.ok("POST", "/simple/testsets/", { testset: { slug: "t", data: { testcases: [] } } });
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.received).toHaveLength(5);
  });

  it("sends a deploy as environments.revisions.committed with its new state and references diff", async () => {
    await subscribe({ event_types: ["environments.revisions.committed"] });
    const app = await createApp("bot");
    await deployTo("production", { application_ref: { id: app.id } });
    const [created] = await receiver.waitFor(1);
    const attrs = created.body.event.attributes;
    const entry = attrs.state.references["bot.revision"];
    expect(entry).toMatchObject({
      application: { id: app.id, slug: "bot" }, application_revision: { id: app.revision_id },
    });
    expect(attrs.diff).toEqual({ created: { "bot.revision": { new: entry } }, updated: {}, deleted: {} });
    expect(attrs.references.environment).toMatchObject({ slug: "production" });

    const next = (await p.ok("POST", "/applications/revisions/commit", {
      application_revision_commit: { application_variant_id: app.variant_id, data: completion },
    })).application_revision;
    await deployTo("production", { application_revision_ref: { id: next.id } });
    const [, updated] = await receiver.waitFor(2);
    const diff = updated.body.event.attributes.diff;
    expect(Object.keys(diff.updated)).toEqual(["bot.revision"]);
    expect(diff.updated["bot.revision"].old).toEqual(entry);
    expect(diff.updated["bot.revision"].new.application_revision.id).toBe(next.id);
    expect(diff.created).toEqual({});
  });

  it("shapes the body with payload_fields: $.-paths and /-pointers select, other leaves stay literal", async () => {
    await subscribe({
      event_types: ["environments.revisions.committed"],
      payload_fields: {
        kind: "$.event.event_type", project: "$.scope.project_id",
        env: "$.event.attributes.references.environment.slug", ptr: "/subscription/name",
        missing: "$.event.nothing.here", literal: "deploy", nested: { list: ["$.subscription.tags.t", 7] },
      },
    });
    const app = await createApp("pf");
    await deployTo("development", { application_ref: { id: app.id } });
    const [got] = await receiver.waitFor(1);
    expect(got.signed).toBe(true);
    expect(got.body).toEqual({
      kind: "environments.revisions.committed", project: p.id, env: "development", ptr: "receiver", missing: null,
      literal: "deploy", nested: { list: [1, 7] },
    });
  });

  it("sends the secret as Authorization in that mode; a subscription's headers never replace ours", async () => {
    await subscribe({
      auth_mode: "authorization", event_types: ["testsets.revisions.committed"],
      headers: {
        "X-Custom": "kept", Authorization: "Bearer mine", "X-Agenta-Event-Type": "forged", "idempotency-key": "forged",
        "Content-Type": "text/plain", "User-Agent": "forged",
      },
    }, { secret: "token-for-authorization-mode" });
    await p.ok("POST", "/simple/testsets/", { testset: { slug: "auth", data: { testcases: [] } } });
    const [got] = await receiver.waitFor(1);
    expect(got.headers.authorization).toBe("token-for-authorization-mode");
    expect(got.headers["x-agenta-signature"]).toBeUndefined();
    expect(got.headers["x-custom"]).toBe("kept");
    expect(got.headers["x-agenta-event-type"]).toBe("testsets.revisions.committed");
    expect(got.headers["idempotency-key"]).toBe(got.headers["x-agenta-delivery-id"]);
    expect(got.headers["content-type"]).toBe("application/json");
    expect(got.headers["user-agent"]).not.toBe("forged");
    // The log keeps the headers sent, the secret hidden.
    const log = await p.ok("POST", "/webhooks/deliveries/query", { delivery: { status: { message: "success" } } });
    const latest = async () => (await p.ok("POST", "/webhooks/deliveries/query", {})).deliveries[0]?.status.message;
    await expect.poll(latest).toBe("success");
    const [entry] = (await p.ok("POST", "/webhooks/deliveries/query", {})).deliveries;
    expect(entry.data.headers.Authorization).toBe("[REDACTED]");
    expect(JSON.stringify(log)).not.toContain("token-for-authorization-mode");
  });

  it("tests a subscription and a draft at once with webhooks.subscriptions.tested", async () => {
    const sub = await subscribe({ event_types: ["environments.revisions.committed"] });
    const tested = await p.ok("POST", "/webhooks/subscriptions/test", { subscription_id: sub.id });
    expect(tested.delivery).toMatchObject({
      status: { code: "200", message: "success" }, subscription_id: sub.id,
      data: { event_type: "webhooks.subscriptions.tested", response: { status_code: 200, body: "ok" } },
    });
    const [got] = receiver.received;
    expect(got.signed).toBe(true);
    expect(got.body.event.attributes).toEqual({ subscription_id: sub.id });
    // Logged, and fetched by id.
    expect((await p.ok("GET", `/webhooks/deliveries/${tested.delivery.id}`)).delivery.attempts).toHaveLength(1);

    receiver.secret = "draft-secret";
    receiver.respond = () => ({ status: 418 });
    const draft = await p.ok("POST", "/webhooks/subscriptions/test", {
      subscription: { data: { url: receiver.url }, secret: "draft-secret" },
    });
    expect(draft.delivery.status).toEqual({ code: "418", message: "failed" });
    expect(receiver.received[1].signed).toBe(true);
    expect(receiver.received[1].body.event.attributes).toEqual({ subscription_id: "draft" });
    expect((await p.call("POST", "/webhooks/subscriptions/test", {})).statusCode).toBe(400);
    const unknown = await p.call("POST", "/webhooks/subscriptions/test", { subscription_id: crypto.randomUUID() });
    expect(unknown.statusCode).toBe(404);
  });

  it("sends nothing to a stopped subscription", async () => {
    const sub = await subscribe({ event_types: ["testsets.revisions.committed"] });
    await p.ok("POST", `/webhooks/subscriptions/${sub.id}/stop`);
    await p.ok("POST", "/simple/testsets/", { testset: { slug: "quiet", data: { testcases: [] } } });
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.received).toHaveLength(0);
    expect((await p.ok("POST", "/webhooks/deliveries/query", { delivery: { subscription_id: sub.id } })).count).toBe(0);
  });
});

function sortDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortDeep);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortDeep((value as any)[k])]));
}
