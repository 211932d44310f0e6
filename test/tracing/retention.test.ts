import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../../src/accounts/accounts.ts";
import { createApiKey } from "../../src/accounts/api-keys.ts";
import { loadConfig } from "../../src/config.ts";
import type { Database } from "../../src/db/database.ts";
import { migrate } from "../../src/db/migrate.ts";
import { buildServer } from "../../src/http/server.ts";
import { uuidv7 } from "../../src/ids/uuid-v7.ts";
import { emptyDatabase, type EmptyDatabase } from "../support/empty-database.ts";
import { checkAnswersAgainstOpenApi } from "../support/openapi-conformance.ts";
import { exportRequest, nanos, randomHex, rejectedSpans } from "./otlp-support.ts";

// A database of its own: the server's default retention applies to every project in it.
let empty: EmptyDatabase;
let db: Database;
let app: FastifyInstance;

const DAY = 24 * 3600 * 1000;

beforeAll(async () => {
  empty = await emptyDatabase();
  db = await empty.connect();
  await migrate(db);
  const config = {
    ...loadConfig({
      ...process.env, TESSERA_SPAN_RETENTION_DAYS: "7", TESSERA_SPAN_RETENTION_SWEEP_SECONDS: "1",
      TESSERA_SPAN_RETENTION_BATCH: "2",
    }),
    databaseUrl: empty.url, dataDir: "/nonexistent",
  };
  app = await buildServer({ config, db }, { logger: false });
  await app.ready();
  checkAnswersAgainstOpenApi(app);
});
afterAll(async () => {
  await app.close();
  await empty.dispose();
});

async function project() {
  const account = await db.transaction((tx) =>
    createAccount(tx, { user: { email: `user-${uuidv7()}@test.local` } }, false));
  const { key } = await createApiKey(db, account.project.id, account.user.id);
  const call = (method: "GET" | "PATCH" | "POST", url: string, payload?: unknown, headers = {}) =>
    app.inject({
      method, url: `/api${url}`, headers: { authorization: `ApiKey ${key}`, ...headers }, payload,
    } as never);
  return {
    call,
    /** Sends a trace whose spans started `ages` days ago (the first is the root); its id. */
    async trace(...ages: number[]): Promise<string> {
      const traceId = randomHex(16);
      const root = randomHex(8);
      const res = await call("POST", "/otlp/v1/traces", exportRequest(ages.map((age, i) => {
        const start = nanos(-age * DAY);
        return {
          traceId, spanId: i === 0 ? root : randomHex(8), ...(i === 0 ? {} : { parentSpanId: root }),
          name: `span-${i}`, start, end: start + 1_000_000n,
        };
      })), { "content-type": "application/x-protobuf" });
      expect(res.statusCode).toBe(200);
      expect(rejectedSpans(res.rawPayload)).toBe(0);
      return traceId;
    },
    async spans(traceId: string): Promise<number> {
      const res = await call("GET", `/tracing/traces/${traceId}`);
      expect(res.statusCode).toBe(200);
      const tree = res.json().traces?.[traceId];
      if (!tree) return 0;
      let n = 0;
      const walk = (spans: Record<string, any>) => {
        for (const span of Object.values(spans)) {
          n++;
          if (span.spans) walk(span.spans);
        }
      };
      walk(tree.spans);
      return n;
    },
  };
}

describe("span retention", () => {
  it("is a project setting that follows the server's default until set", async () => {
    const p = await project();
    expect((await p.call("GET", "/projects/current/settings")).json())
      .toEqual({ span_retention_days: null, server_span_retention_days: 7 });
    const set = await p.call("PATCH", "/projects/current/settings", { span_retention_days: 30 });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toEqual({ span_retention_days: 30, server_span_retention_days: 7 });
    expect((await p.call("PATCH", "/projects/current/settings", {})).json().span_retention_days).toBe(30);
    for (const wrong of [-1, 36_501, 1.5, "7"]) {
      const res = await p.call("PATCH", "/projects/current/settings", { span_retention_days: wrong });
      expect(res.statusCode).toBe(422);
      expect(JSON.stringify(res.json().detail)).toContain("span_retention_days");
    }
    for (const body of [[], [1], "7"]) {
      const res = await p.call("PATCH", "/projects/current/settings", JSON.stringify(body), {
        "content-type": "application/json",
      });
      expect(res.statusCode).toBe(422);
    }
    expect((await p.call("GET", "/projects/current/settings")).json().span_retention_days).toBe(30);
    expect((await p.call("PATCH", "/projects/current/settings", { span_retention_days: null })).json())
      .toEqual({ span_retention_days: null, server_span_retention_days: 7 });
  });

  it("deletes expired traces in the background, whole, and leaves recent ones and other projects' alone", async () => {
    const byDefault = await project();
    const expired = [await byDefault.trace(10, 10), await byDefault.trace(9, 9, 9), await byDefault.trace(8)];
    const straddling = await byDefault.trace(10, 0);
    const recent = await byDefault.trace(1, 1);

    const keeps = await project();
    expect((await keeps.call("PATCH", "/projects/current/settings", { span_retention_days: 0 })).statusCode).toBe(200);
    const ancient = await keeps.trace(400, 400);

    const monthly = await project();
    expect((await monthly.call("PATCH", "/projects/current/settings", { span_retention_days: 30 })).statusCode)
      .toBe(200);
    const tenDays = await monthly.trace(10);
    const fortyDays = await monthly.trace(40, 40);

    const deadline = Date.now() + 20_000;
    for (;;) {
      const left = await Promise.all([...expired, straddling].map((id) => byDefault.spans(id)));
      const forty = await monthly.spans(fortyDays);
      if (left.every((n) => n === 0) && forty === 0) break;
      if (Date.now() > deadline) throw new Error(`still stored after 20 s: ${left.join(", ")}; ${forty}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(await byDefault.spans(recent)).toBe(2);
    expect(await keeps.spans(ancient)).toBe(2);
    expect(await monthly.spans(tenDays)).toBe(1);
    const [sweeps] = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM jobs WHERE queue = 'span-retention' AND status = 'done'",
    );
    expect(sweeps!.n).toBeGreaterThan(0);
  });
});
