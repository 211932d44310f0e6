import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "../src/json-depth.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

/**
 * The error contract, exercised on a route the foundation owns: admin account provisioning, which
 * validates a strict body. Every answer is JSON `{detail}`; validation answers 422 with
 * `[{loc, msg, type}]`; nothing a client sends yields a 500.
 */
const ADMIN = "admin-secret-for-errors";
const ROUTE = "/api/admin/simple/accounts/";
const auth = { authorization: `Access ${ADMIN}` };
const email = () => `errors-${crypto.randomUUID()}@test.local`;

let server: TestServer;
let small: TestServer;

beforeAll(async () => {
  server = await startTestServer({ TESSERA_ADMIN_KEY: ADMIN });
  small = await startTestServer({ TESSERA_ADMIN_KEY: ADMIN, TESSERA_BODY_LIMIT: "1024" });
});
afterAll(async () => {
  await server.close();
  await small.close();
});

const post = (payload: string, contentType = "application/json", target = server) =>
  target.app.inject({ method: "POST", url: ROUTE, headers: { ...auth, "content-type": contentType }, payload });

describe("error contract", () => {
  it("malformed JSON → 400 saying where", async () => {
    const res = await post('{"accounts": {"a": ');
    expect(res.statusCode).toBe(400);
    expect(res.headers["content-type"]).toMatch(/application\/json/);
    expect(res.json().detail).toMatch(/^Malformed JSON body: .*JSON/);
  });

  it("empty JSON body → 400", async () => {
    const res = await post("");
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(/Body cannot be empty/);
  });

  it("missing field → 422 with loc, msg and type", async () => {
    const res = await post("{}");
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ detail: [{ loc: ["body", "accounts"], msg: "Field required", type: "missing" }] });
  });

  it("unknown field → ignored and named in x-tessera-ignored-fields, at the top and nested", async () => {
    const top = await post(JSON.stringify({ accounts: { a: { user: { email: email() } } }, surprise: 1 }));
    expect(top.statusCode).toBe(200);
    expect(top.headers["x-tessera-ignored-fields"]).toBe("body.surprise");

    const nested = await post(JSON.stringify({ accounts: { a: { user: { email: email(), nickname: "x" } } }, "we ird\n": 1 }));
    expect(nested.statusCode).toBe(200);
    expect(nested.headers["x-tessera-ignored-fields"]).toBe('body."we ird\\n", body.accounts.a.user.nickname');

    const unicode = await post(JSON.stringify({ accounts: { a: { user: { email: email() } } }, "ключ🙂": 1 }));
    expect(unicode.statusCode).toBe(200);
    expect(unicode.headers["x-tessera-ignored-fields"]).toBe('body."\\u043a\\u043b\\u044e\\u0447\\ud83d\\ude42"');

    const many = await post(JSON.stringify({ accounts: { a: { user: { email: email() } } }, ...Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`x${i}`, i])) }));
    expect(many.statusCode).toBe(200);
    expect(many.headers["x-tessera-ignored-fields"]).toMatch(/^body\.x0, body\.x1, .*body\.x31, \.\.\. 8 more$/);

    const wrongToo = await post(JSON.stringify({ accounts: { a: { user: { email: 42, nickname: "x" } } } }));
    expect(wrongToo.statusCode).toBe(422);
    expect(wrongToo.json().detail).toEqual([
      { loc: ["body", "accounts", "a", "user", "email"], msg: "Input should be of type string", type: "string_type" },
    ]);
  });

  it("free-form objects accept any field", async () => {
    const res = await post(JSON.stringify({ accounts: { a: { user: { email: email(), metadata: { anything: { goes: [1, "two"] } } } } } }));
    expect(res.statusCode).toBe(200);
  });

  it("wrong type → 422 naming the expected type", async () => {
    const res = await post(JSON.stringify({ accounts: "alice" }));
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([{ loc: ["body", "accounts"], msg: "Input should be of type object", type: "object_type" }]);

    const deeper = await post(JSON.stringify({ accounts: { a: { user: { email: 42 } } } }));
    expect(deeper.statusCode).toBe(422);
    expect(deeper.json().detail).toEqual([{ loc: ["body", "accounts", "a", "user", "email"], msg: "Input should be of type string", type: "string_type" }]);

    const notObject = await post("[]");
    expect(notObject.statusCode).toBe(422);
    expect(notObject.json().detail[0]).toMatchObject({ loc: ["body"], type: "object_type" });
  });

  it("invalid format → 422", async () => {
    const res = await post(JSON.stringify({ accounts: { a: { user: { email: email() }, api_keys: [{ expires_at: "next tuesday" }] } } }));
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0]).toMatchObject({ loc: ["body", "accounts", "a", "api_keys", 0, "expires_at"], type: "date-time_parsing" });
  });

  it("body over TESSERA_BODY_LIMIT → 413 naming the limit", async () => {
    const payload = JSON.stringify({ accounts: { a: { user: { email: email(), metadata: { pad: "x".repeat(2000) } } } } });
    const res = await post(payload, "application/json", small);
    expect(res.statusCode).toBe(413);
    expect(res.json().detail).toMatch(/larger than the limit of 1024 bytes \(TESSERA_BODY_LIMIT\)/);
    // The same body is fine under the default limit.
    expect((await post(payload)).statusCode).toBe(200);
  });

  it("unsupported content type → 415 naming it", async () => {
    for (const type of ["text/plain", "application/xml", "application/x-www-form-urlencoded"]) {
      const res = await post("<accounts/>", type);
      expect(res.statusCode, type).toBe(415);
      expect(res.json().detail).toBe(`Unsupported content type: ${type}; send application/json`);
    }
  });

  it("unknown route → 404 with the method and path (401 first when there is no valid key)", async () => {
    const project = await server.project();
    const res = await project.call("GET", "/no/such/route?x=1");
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: "Not found: GET /api/no/such/route" });

    const anonymous = await server.app.inject({ method: "GET", url: "/api/no/such/route" });
    expect(anonymous.statusCode).toBe(401);
    const outside = await server.app.inject({ method: "GET", url: "/not-the-api" });
    expect(outside.statusCode).toBe(404);
    expect(outside.json().detail).toMatch(/^Not found/);
  });

  it("undecodable URL → 400 in the same shape", async () => {
    const res = await server.app.inject({ method: "GET", url: "/api/%E0%A4%A" });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(/not a valid url component/);
  });

  it("JSON nested deeper than the limit → 422; __proto__ keys → 400", async () => {
    const deep = "[".repeat(MAX_JSON_DEPTH + 10) + "]".repeat(MAX_JSON_DEPTH + 10);
    const res = await post(`{"accounts":{"a":{"user":{"email":"${email()}","metadata":{"x":${deep}}}}}}`);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([{ loc: ["body"], msg: `JSON is nested deeper than ${MAX_JSON_DEPTH} levels`, type: "too_deep" }]);

    const proto = await post(`{"accounts":{},"__proto__":{"polluted":true}}`);
    expect(proto.statusCode).toBe(400);
    expect(proto.json().detail).toMatch(/__proto__/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("nothing a client sends produces a 500", async () => {
    const account = (user: object, extra: object = {}) => JSON.stringify({ accounts: { a: { user: { email: email(), ...user }, ...extra } } });
    const nasty: [string, { url?: string; method?: string; payload?: string; headers?: Record<string, string> }][] = [
      ["NUL byte in a text column", { payload: account({ name: "a\u0000b" }) }],
      ["NUL escape in a jsonb column", { payload: account({ metadata: { x: "a\u0000" } }) }],
      ["lone surrogate in jsonb", { payload: `{"accounts":{"a":{"user":{"email":"${email()}","metadata":{"x":"\\ud800"}}}}}` }],
      ["year 0 timestamp", { payload: account({}, { api_keys: [{ expires_at: "0000-01-01T00:00:00Z" }] }) }],
      ["very deep JSON", { payload: `{"accounts":{"a":{"user":{"email":"${email()}","metadata":{"x":${"[".repeat(100_000)}${"]".repeat(100_000)}}}}}}` }],
      ["huge number", { payload: account({ metadata: { x: 1e400, y: 123456789012345678901234567890 } }) }],
      ["very long slug", { payload: account({}, { project: { name: "p", slug: "s".repeat(50_000) } }) }],
      ["two accounts, one email", { payload: JSON.stringify({ accounts: { a: { user: { email: "twice@test.local" } }, b: { user: { email: "TWICE@test.local" } } } }) }],
      ["constructor.prototype", { payload: `{"accounts":{},"constructor":{"prototype":{"x":1}}}` }],
      ["null body", { payload: "null" }],
      ["a bare string", { payload: '"accounts"' }],
      ["charset parameter", { payload: "{}", headers: { ...auth, "content-type": "application/json; charset=utf-8" } }],
      ["no content type", { payload: "{}", headers: auth }],
      ["multipart", { payload: "--x\r\n", headers: { ...auth, "content-type": "multipart/form-data; boundary=x" } }],
      ["wrong content-length", { payload: "{}", headers: { ...auth, "content-type": "application/json", "content-length": "1000" } }],
      ["junk query string", { url: `${ROUTE}?a[b]=1&&=%%&x=%E0`, payload: "{}" }],
      ["bad percent-encoding", { url: "/api/admin/simple/accounts/%", payload: "{}" }],
      ["odd request id", { payload: "{}", headers: { ...auth, "content-type": "application/json", "x-request-id": "a b\t<script>" } }],
      ["empty Authorization", { payload: "{}", headers: { authorization: "   ", "content-type": "application/json" } }],
      ["scheme only", { payload: "{}", headers: { authorization: "Access", "content-type": "application/json" } }],
      ["OPTIONS", { method: "OPTIONS", url: "/api/health" }],
      ["DELETE on a POST route", { method: "DELETE", payload: "{}" }],
    ];
    for (const [name, request] of nasty) {
      const res = await server.app.inject({
        method: (request.method ?? "POST") as "POST",
        url: request.url ?? ROUTE,
        headers: request.headers ?? { ...auth, "content-type": "application/json" },
        ...(request.payload === undefined ? {} : { payload: request.payload }),
      });
      expect(res.statusCode, `${name}: ${res.body.slice(0, 300)}`).toBeLessThan(500);
      if (res.statusCode >= 400) expect(res.json(), name).toHaveProperty("detail");
    }
  });
});

describe("request ids", () => {
  it("echoes a well-formed x-request-id and replaces anything else", async () => {
    const given = await server.app.inject({ method: "GET", url: "/api/health", headers: { "x-request-id": "abc-123" } });
    expect(given.headers["x-request-id"]).toBe("abc-123");
    const odd = await server.app.inject({ method: "GET", url: "/api/health", headers: { "x-request-id": "not ok <b>" } });
    expect(odd.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    const none = await post("{}");
    expect(none.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  });
});
