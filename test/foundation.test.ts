import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestProject, type TestServer } from "./support/server.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await startTestServer();
  project = await server.project();
});
afterAll(() => server.close());

describe("health and documentation", () => {
  it("answers health without a key", async () => {
    const res = await server.app.inject({ method: "GET", url: "/api/health" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: "ok" });
  });

  it("serves a valid OpenAPI 3.1 document", async () => {
    const res = await server.app.inject({ method: "GET", url: "/api/openapi.json" });
    expect(res.statusCode).toBe(200);
    expect(res.json().openapi).toBe("3.1.0");
  });
});

describe("authentication", () => {
  it("names what is wrong with the key", async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{}, /Missing Authorization/],
      [{ authorization: "Bearer abc" }, /Malformed Authorization/],
      [{ authorization: "ApiKey nope" }, /Malformed API key/],
      [{ authorization: "ApiKey tsk_AAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB" }, /Unknown API key/],
    ];
    for (const [headers, detail] of cases) {
      const res = await server.app.inject({ method: "POST", url: "/api/applications/query", headers, payload: {} });
      expect(res.statusCode).toBe(401);
      expect(res.json().detail).toMatch(detail);
    }
  });
});

describe("error contract", () => {
  it("echoes the request id", async () => {
    const res = await server.app.inject({ method: "GET", url: "/api/health", headers: { "x-request-id": "abc-123" } });
    expect(res.headers["x-request-id"]).toBe("abc-123");
  });

  it("answers unknown routes with 404 and a detail", async () => {
    const res = await project.call("GET", "/no/such/route");
    expect(res.statusCode).toBe(404);
    expect(res.json().detail).toMatch(/Not found/);
  });
});
