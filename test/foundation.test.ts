import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestProject, type TestServer } from "./support/server.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await startTestServer({ TESSERA_ADMIN_KEY: "foundation-admin" });
  project = await server.project();
});
afterAll(() => server.close());

const METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

describe("health and documentation", () => {
  it("answers health without a key", async () => {
    const res = await server.app.inject({ method: "GET", url: "/api/health" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: "ok" });
  });

  it("serves a valid OpenAPI 3.2 document", async () => {
    const res = await server.app.inject({ method: "GET", url: "/api/openapi.json" });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe("3.2.0");
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    expect(doc.components.securitySchemes.ApiKey).toMatchObject({ type: "apiKey", in: "header", name: "Authorization" });
    expect(doc.paths["/api/health"].get.security).toEqual([]);
    expect(doc.paths["/api/admin/simple/accounts/"].post).toBeDefined();

    const problems: string[] = [];
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      // The API lives under /api; the hosted runtime answers at data.url, under /services.
      if (!path.startsWith("/api/") && !path.startsWith("/services/")) problems.push(`${path}: outside /api and /services`);
      const placeholders = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const [method, op] of Object.entries<any>(item)) {
        if (!METHODS.has(method)) continue;
        const where = `${method.toUpperCase()} ${path}`;
        const codes = Object.keys(op.responses ?? {});
        if (codes.length === 0) problems.push(`${where}: no responses`);
        for (const code of codes) if (!/^([1-5]\d\d|[1-5]XX|default)$/.test(code)) problems.push(`${where}: response key ${code}`);
        const declared = (op.parameters ?? []).filter((p: any) => p.in === "path");
        for (const name of placeholders) {
          const param = declared.find((p: any) => p.name === name);
          if (!param || param.required !== true) problems.push(`${where}: path parameter ${name} not declared as required`);
        }
        for (const param of declared) if (!placeholders.includes(param.name)) problems.push(`${where}: path parameter ${param.name} not in the path`);
      }
    }
    // Every $ref points at something in the document.
    JSON.stringify(doc, (key, value) => {
      if (key === "$ref" && typeof value === "string") {
        const target = value.replace(/^#\//, "").split("/").reduce<any>((node, part) => node?.[part.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
        if (!value.startsWith("#/") || target === undefined) problems.push(`dangling $ref ${value}`);
      }
      return value;
    });
    expect(problems).toEqual([]);
  });

  it("serves the interactive reference at /api/docs", async () => {
    const res = await server.app.inject({ method: "GET", url: "/api/docs" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toMatch(/text\/html/);
    expect(res.body).toMatch(/swagger/i);
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
