import { createHmac, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

/** One request a receiver got, with what its signature check found. */
export interface Received {
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: any;
  /** The signature header matched an HMAC of `t.raw` under the receiver's secret. */
  signed: boolean;
  at: number;
}

/** How the receiver answers a request: a status (default 200), headers, or never (`hang`). */
export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  hang?: boolean;
}

/**
 * A webhook subscriber on 127.0.0.1 that checks every request's `X-Agenta-Signature` the way the README tells
 * subscribers to, records it, and answers as `respond` says.
 */
export class Receiver {
  readonly received: Received[] = [];
  secret = "";
  respond: (request: Received, index: number) => Answer = () => ({});
  readonly #server: http.Server;
  readonly #hung: http.ServerResponse[] = [];
  url = "";

  constructor() {
    this.#server = http.createServer(async (req, res) => {
      let raw = "";
      for await (const chunk of req) raw += chunk;
      const signed = this.verify(req, raw);
      const got: Received = { headers: req.headers, raw, body: JSON.parse(raw), signed, at: Date.now() };
      this.received.push(got);
      const answer = this.respond(got, this.received.length - 1);
      if (answer.hang) return void this.#hung.push(res);
      res.writeHead(answer.status ?? 200, answer.headers ?? {}).end("ok");
    });
  }

  async start(port = 0): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(port, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/hook`;
    return this;
  }

  verify(req: http.IncomingMessage, raw: string): boolean {
    const header = String(req.headers["x-agenta-signature"] ?? "");
    const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
    if (!match || !this.secret) return false;
    const expected = createHmac("sha256", this.secret).update(`${match[1]}.${raw}`).digest();
    return timingSafeEqual(expected, Buffer.from(match[2], "hex"));
  }

  /** Resolves once `count` requests (optionally only those `which` accepts) have arrived. */
  async waitFor(count: number, which: (r: Received) => boolean = () => true, timeoutMs = 20_000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const got = this.received.filter(which);
      if (got.length >= count) return got;
      if (Date.now() > deadline) {
        throw new Error(`expected ${count} requests, got ${got.length} within ${timeoutMs} ms`);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async close(): Promise<void> {
    for (const res of this.#hung.splice(0)) res.destroy();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** Settings that let tests use a receiver on 127.0.0.1 and retry quickly. */
export const WEBHOOK_TEST_ENV = {
  TESSERA_ALLOW_PRIVATE_HOOKS: "true",
  TESSERA_SECRET_KEY: "webhook-tests-secret-key",
  TESSERA_WEBHOOK_RETRY_BASE_MS: "100",
  TESSERA_WEBHOOK_TIMEOUT_MS: "1000",
};
