import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processTarget, type ProcessTarget } from "../support/process-target.ts";
import { startServerProcess, type ServerProcess } from "../support/process.ts";
import { Receiver, WEBHOOK_TEST_ENV } from "./receiver.ts";

let target: ProcessTarget;
let server: ServerProcess | null = null;
let receiver: Receiver | null = null;

beforeAll(async () => {
  target = await processTarget();
});
afterAll(async () => {
  await server?.stop("SIGKILL");
  await receiver?.close();
  await target.dispose();
});

// A lease long enough that a busy embedded database never lets one lapse while its attempt runs.
const env = () => ({ ...target.env, ...WEBHOOK_TEST_ENV, TESSERA_JOB_LEASE_SECONDS: "10" });

async function call(method: string, path: string, body?: unknown) {
  const key = readFileSync(join(target.dir, "api-key"), "utf8").trim();
  const res = await fetch(`${server!.url}/api${path}`, {
    method, headers: { authorization: `ApiKey ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status}: ${await res.text()}`);
  return res.json() as Promise<any>;
}

describe("a server killed right after a commit", () => {
  it("delivers the commit's event after it starts again, exactly once", { timeout: 120_000 }, async () => {
    // The subscriber's port is closed while the first server lives: nothing can reach it before the kill.
    const probe = await new Receiver().start();
    const port = Number(new URL(probe.url).port);
    await probe.close();

    server = await startServerProcess(env());
    const created = await call("POST", "/simple/testsets/", { testset: { slug: "crash", data: { testcases: [] } } });
    const testset = created.testset;
    const sub = (await call("POST", "/webhooks/subscriptions/", {
      subscription: { data: { url: `http://127.0.0.1:${port}/hook`, event_types: ["testsets.revisions.committed"] } },
    })).subscription;
    const committed = (await call("POST", "/testsets/revisions/commit", {
      testset_revision_commit: { testset_variant_id: testset.variant_id, data: { testcases: [] } },
    })).testset_revision;
    await server.stop("SIGKILL");

    receiver = await new Receiver().start(port);
    receiver.secret = sub.secret;
    server = await startServerProcess(env());
    const [got] = await receiver.waitFor(1, () => true, 30_000);
    expect(got.signed).toBe(true);
    expect(got.body.event.attributes.references.testset_revision.id).toBe(committed.id);
    // Long enough for a second copy to have come, had one been queued or left running.
    await new Promise((r) => setTimeout(r, 2_500));
    const { deliveries } = await call("POST", "/webhooks/deliveries/query", { delivery: { subscription_id: sub.id } });
    const seen = receiver.received.map((r) => `${r.headers["idempotency-key"]} at ${r.at}`);
    expect(seen, JSON.stringify({ deliveries, log: server.output.stdout.slice(-3000) })).toHaveLength(1);
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({
      id: got.headers["idempotency-key"], status: { code: "200", message: "success" },
    });
  });
});
