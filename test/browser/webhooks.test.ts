import { createHmac } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { screenshot, signIn, startConsoleServer, useBrowser, type ConsoleServer } from "./support.ts";

/** What the receiver got: each request's event type, whether its signature checked out, and its body. */
interface Received {
  type: string;
  signed: boolean;
  body: any;
}

describe("console: webhooks", () => {
  const browser = useBrowser();
  let server: ConsoleServer;
  let receiver: Server;
  let receiverUrl: string;
  const received: Received[] = [];
  let secret = "";
  let failing = false;

  beforeAll(async () => {
    server = await startConsoleServer({
      TESSERA_SECRET_KEY: "webhooks-test-secret-key-0123456789",
      TESSERA_ALLOW_PRIVATE_HOOKS: "true", // the receiver listens on 127.0.0.1, over http
    });
    receiver = createServer(async (req, res) => {
      let body = "";
      for await (const chunk of req) body += chunk;
      const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(req.headers["x-agenta-signature"] ?? "")) ?? [];
      const signed = !!v1 && createHmac("sha256", secret).update(`${t}.${body}`).digest("hex") === v1;
      received.push({ type: String(req.headers["x-agenta-event-type"]), signed, body: JSON.parse(body) });
      res.writeHead(failing ? 404 : 204).end(failing ? "no such hook" : undefined);
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  });
  afterAll(async () => {
    await server?.close();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  const until = async (done: () => boolean) => {
    for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 50));
    expect(done()).toBe(true);
  };

  it("adds a webhook, tests it, sees a deploy delivered signed, and redelivers from the log", async () => {
    const { page } = browser;
    await signIn(page, server);
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Settings" }).click();
    await page.getByRole("heading", { name: "Webhooks" }).waitFor();
    await page.getByText("No subscriptions yet").waitFor();

    const form = page.getByRole("form", { name: "Add a webhook" });
    await form.getByLabel("Name").fill("cache purge");
    await form.getByLabel("URL").fill(receiverUrl);
    await form.getByLabel("Testset commits").uncheck();
    await form.getByRole("button", { name: "Add webhook" }).click();
    secret = await page.getByLabel("Webhook secret").inputValue();
    expect(secret.length).toBeGreaterThan(20);
    const table = page.getByRole("table", { name: "Webhook subscriptions" });
    await table.getByRole("row").filter({ hasText: "cache purge" }).getByText("active").waitFor();

    await page.getByRole("button", { name: "Send a test to cache purge" }).click();
    await page.getByText(`Test sent to ${receiverUrl}: 204`).waitFor();
    expect(received.map((r) => [r.type, r.signed])).toEqual([["webhooks.subscriptions.tested", true]]);

    // A deploy made anywhere (here through the API) reaches the receiver, signed.
    const app = (await server.api("POST", "/simple/applications/", {
      application: { slug: "greeter", data: { uri: "svc:builtin:completion:v0" } },
    })).application;
    await server.api("POST", "/applications/revisions/deploy", {
      application_variant_ref: { id: app.variant_id }, environment_ref: { slug: "production" },
    });
    await until(() => received.some((r) => r.type === "environments.revisions.committed"));
    const deploy = received.find((r) => r.type === "environments.revisions.committed")!;
    expect(deploy.signed).toBe(true);
    expect(JSON.stringify(deploy.body)).toContain("greeter");
    // The application's own commits are workflow events, which it asked for; testset events it did not.
    expect(received.every((r) => !r.type.startsWith("testsets."))).toBe(true);

    const log = page.getByRole("table", { name: "Webhook deliveries" });
    await page.getByRole("button", { name: "Refresh" }).click();
    await log.getByText("environments.revisions.committed").waitFor();
    await screenshot(page, "webhooks");

    // A receiver that refuses (a final 404) shows as failed; redeliver sends the same event again.
    failing = true;
    const before = received.length; // counted first: the delivery can come before the deploy's answer does
    await server.api("POST", "/applications/revisions/deploy", {
      application_variant_ref: { id: app.variant_id }, environment_ref: { slug: "staging" },
    });
    await until(() => received.length > before);
    failing = false;
    await page.getByRole("button", { name: "Refresh" }).click();
    const failed = log.getByRole("row").filter({ hasText: "404" }).first();
    await failed.waitFor();
    const count = received.length;
    await failed.getByRole("button", { name: /^Redeliver / }).click();
    await until(() => received.length > count);
    expect(received.at(-1)!.type).toBe("environments.revisions.committed");
    expect(received.at(-1)!.signed).toBe(true);
    expect(JSON.stringify(received.at(-1)!.body)).toContain("staging");

    // Stopped, it is sent nothing; deleted, it is gone from the list.
    await table.getByRole("button", { name: "Stop" }).click();
    await table.getByText("stopped").waitFor();
    await page.getByRole("button", { name: "Delete cache purge" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete" }).click();
    await page.getByText("No subscriptions yet").waitFor();
  });
});
