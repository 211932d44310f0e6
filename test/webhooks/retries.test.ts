import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestServer, type TestProject, type TestServer } from "../support/server.ts";
import { Receiver, WEBHOOK_TEST_ENV } from "./receiver.ts";

let server: TestServer;
let receiver: Receiver;
let p: TestProject;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Eight places, two per subscriber; a five-second timeout; paused after 2.5 s of failures.
beforeAll(async () => {
  server = await startTestServer({
    ...WEBHOOK_TEST_ENV, TESSERA_WEBHOOK_CONCURRENCY: "8", TESSERA_WEBHOOK_SUBSCRIBER_CONCURRENCY: "2",
    TESSERA_WEBHOOK_TIMEOUT_MS: "5000", TESSERA_WEBHOOK_PAUSE_AFTER_MS: "2500",
  });
  receiver = await new Receiver().start();
});
afterAll(async () => {
  await server.close();
  await receiver.close();
});
let testset: { id: string; variant_id: string };
beforeEach(async () => {
  p = await server.project();
  // Made before any subscription: its own commits go to nobody.
  testset = (await p.ok("POST", "/simple/testsets/", { testset: { slug: "t", data: { testcases: [] } } })).testset;
  receiver.received.length = 0;
  receiver.respond = () => ({});
});

async function subscribe(url: string, secret?: string) {
  const sub = (await p.ok("POST", "/webhooks/subscriptions/", {
    subscription: { data: { url, event_types: ["testsets.revisions.committed"] }, ...(secret ? { secret } : {}) },
  })).subscription;
  return sub;
}

/** One commit: one testsets.revisions.committed event. */
const commit = () => p.ok("POST", "/testsets/revisions/commit", {
  testset_revision_commit: { testset_variant_id: testset.variant_id, data: { testcases: [] } },
});

async function deliveriesOf(subscriptionId: string, until: (ds: any[]) => boolean, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const query = { delivery: { subscription_id: subscriptionId } };
    const { deliveries } = await p.ok("POST", "/webhooks/deliveries/query", query);
    if (until(deliveries)) return deliveries;
    if (Date.now() > deadline) throw new Error(`delivery log never matched: ${JSON.stringify(deliveries, null, 1)}`);
    await sleep(50);
  }
}

describe("retries, the delivery log and pausing", () => {
  it("retries 5xx until it succeeds under one Idempotency-Key, logs each attempt; redeliver resends", async () => {
    const sub = await subscribe(receiver.url);
    receiver.secret = sub.secret;
    receiver.respond = (_, i) => ({ status: i < 2 ? 503 : 200 });
    await commit();
    const got = await receiver.waitFor(3);
    expect(new Set(got.map((r) => r.headers["idempotency-key"])).size).toBe(1);
    expect(got.every((r) => r.signed)).toBe(true);
    const [delivery] = await deliveriesOf(sub.id, (ds) => ds[0]?.status.message === "success");
    expect(delivery.id).toBe(got[0].headers["idempotency-key"]);
    expect(delivery.status).toEqual({ code: "200", message: "success" });
    expect(delivery.attempts.map((a: any) => a.status_code)).toEqual([503, 503, 200]);
    expect(delivery.attempts.map((a: any) => a.attempt)).toEqual([1, 2, 3]);
    expect(delivery.attempts[0].retry_in_ms).toBeGreaterThan(0);
    expect(delivery.attempts[2].retry_in_ms).toBeNull();
    for (const a of delivery.attempts) {
      expect(a.latency_ms).toBeGreaterThanOrEqual(0);
      expect(a.response).toBe("ok");
    }
    // Backoff: the second wait is about twice the first (jitter keeps each within its upper half).
    expect(got[2].at - got[1].at).toBeGreaterThanOrEqual(90);

    const again = (await p.ok("POST", `/webhooks/deliveries/${delivery.id}/redeliver`)).delivery;
    expect(again).toMatchObject({
      redelivery_of: delivery.id, event_id: delivery.event_id, status: { message: "pending" },
    });
    const [, , , fourth] = await receiver.waitFor(4);
    expect(fourth.headers["idempotency-key"]).toBe(again.id);
    expect(fourth.headers["x-agenta-event-id"]).toBe(delivery.event_id);
    expect(fourth.raw).toBe(got[2].raw);
    expect((await p.call("POST", `/webhooks/deliveries/${crypto.randomUUID()}/redeliver`)).statusCode).toBe(404);
  });

  it("waits as long as a 429's Retry-After says", async () => {
    const sub = await subscribe(receiver.url);
    receiver.respond = (_, i) => (i === 0 ? { status: 429, headers: { "Retry-After": "1" } } : {});
    await commit();
    const [first, second] = await receiver.waitFor(2);
    expect(second.at - first.at).toBeGreaterThanOrEqual(950);
    expect(second.headers["idempotency-key"]).toBe(first.headers["idempotency-key"]);
    const [delivery] = await deliveriesOf(sub.id, (ds) => ds[0]?.status.message === "success");
    expect(delivery.attempts[0]).toMatchObject({ status_code: 429, retry_in_ms: 1000 });
  });

  it("retries an attempt that times out and a connection that is refused", async () => {
    const sub = await subscribe(receiver.url);
    receiver.respond = (_, i) => (i === 0 ? { hang: true } : {});
    await commit();
    const got = await receiver.waitFor(2);
    expect(got[1].headers["idempotency-key"]).toBe(got[0].headers["idempotency-key"]);
    const [timedOut] = await deliveriesOf(sub.id, (ds) => ds[0]?.status.message === "success");
    expect(timedOut.attempts[0]).toMatchObject({ status_code: null, error: expect.stringMatching(/Timeout/) });
    expect(timedOut.attempts[0].latency_ms).toBeGreaterThanOrEqual(4900);

    // A port nothing listens on, until a receiver starts there.
    const later = await new Receiver().start();
    const port = new URL(later.url).port;
    await later.close();
    const closed = await subscribe(`http://127.0.0.1:${port}/hook`);
    await commit();
    await deliveriesOf(closed.id, (ds) => ds[0]?.attempts.length >= 1);
    const reopened = await new Receiver().start(Number(port));
    try {
      const [arrived] = await reopened.waitFor(1);
      const [delivery] = await deliveriesOf(closed.id, (ds) => ds[0]?.status.message === "success");
      expect(delivery.attempts[0].error).toMatch(/ECONNREFUSED/);
      expect(arrived.headers["idempotency-key"]).toBe(delivery.id);
    } finally {
      await reopened.close();
    }
  });

  it("does not hold one subscriber's deliveries behind another that hangs", async () => {
    let stopAfter = "";
    const fast = await new Receiver().start();
    try {
      receiver.respond = () => ({ hang: true });
      const hanging = await subscribe(receiver.url);
      stopAfter = hanging.id;
      // Five deliveries due to the one that hangs, more than its two places.
      for (let i = 0; i < 5; i++) await commit();
      await receiver.waitFor(2);
      await subscribe(fast.url);
      await commit();
      const [got] = await fast.waitFor(1, () => true, 5_000);
      // It arrives before the hanging one's first attempts time out (5 s) and free a place,
      expect(got.at).toBeLessThan(receiver.received[0].at + 5_000);
      // and the hanging one held its two places only, though its other deliveries were due too. The limit is each
      // process's: on PostgreSQL the servers of other test files share the queue and may take two more each.
      const before = receiver.received.filter((r) => r.at <= got.at);
      if (!process.env.DATABASE_URL) expect(before).toHaveLength(2);
    } finally {
      await fast.close();
      await p.ok("POST", `/webhooks/subscriptions/${stopAfter}/stop`);
    }
  });

  it("takes a redirect or a 4xx as final, follows no redirect, and sends no payload past its limit", async () => {
    const elsewhere = await new Receiver().start();
    try {
      const sub = await subscribe(receiver.url);
      receiver.respond = (_, i) => (i === 0 ? { status: 307, headers: { Location: elsewhere.url } } : { status: 404 });
      await commit();
      await commit();
      const settled = (ds: any[]) => ds.length === 2 && ds.every((d) => d.status.message === "failed");
      const log = await deliveriesOf(sub.id, settled);
      expect(log.map((d: any) => d.attempts.length)).toEqual([1, 1]);
      expect(log.map((d: any) => d.status.code).sort()).toEqual(["307", "404"]);
      await sleep(300);
      expect(receiver.received).toHaveLength(2);
      expect(elsewhere.received).toHaveLength(0);

      const big = (await p.ok("POST", "/webhooks/subscriptions/", {
        subscription: { data: { url: receiver.url, payload_fields: { pad: "x".repeat(300_000) } } },
      })).subscription;
      await commit();
      const [tooBig] = await deliveriesOf(big.id, (ds) => ds[0]?.status.message === "failed");
      expect(tooBig.data.error).toMatch(/TESSERA_WEBHOOK_MAX_PAYLOAD_BYTES \(262144\)/);
      expect(tooBig.attempts).toHaveLength(0);
      expect(receiver.received.filter((r) => r.body.pad)).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }
  });

  it("pauses a subscription whose every attempt fails for long, says so, and starts again", async () => {
    const sub = await subscribe(receiver.url);
    receiver.respond = () => ({ status: 500 });
    await commit();
    const [delivery] = await deliveriesOf(sub.id, (ds) => ds[0]?.status.message === "failed", 20_000);
    expect(delivery.attempts.length).toBeGreaterThan(2);
    const paused = (await p.ok("GET", `/webhooks/subscriptions/${sub.id}`)).subscription;
    expect(paused.flags.is_active).toBe(false);
    const why = expect.stringMatching(/TESSERA_WEBHOOK_PAUSE_AFTER_MS.*HTTP 500/);
    expect(paused.status).toMatchObject({ code: "paused", message: why });
    // Paused: later events are not sent.
    const mine = () => receiver.received.filter((r) => r.body.subscription?.id === sub.id).length;
    const count = mine();
    await commit();
    await sleep(400);
    expect(mine()).toBe(count);
    const started = (await p.ok("POST", `/webhooks/subscriptions/${sub.id}/start`)).subscription;
    expect(started.flags.is_active).toBe(true);
    expect(started.status).toBeUndefined();
  });
});
