import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestProject, type TestServer } from "./support/server.ts";

describe("GET /api/server/info: the version and the limits in force", () => {
  let server: TestServer;
  let p: TestProject;
  beforeAll(async () => {
    server = await startTestServer({ TESSERA_BODY_LIMIT: "2048", TESSERA_TEMPLATE_MAX_STEPS: "777" });
    p = await server.project();
  });
  afterAll(() => server.close());

  it("answers the package's version and the configured limits, each with its variable", async () => {
    const info = await p.ok("GET", "/server/info");
    expect(info.version).toBe(JSON.parse(readFileSync("package.json", "utf8")).version);
    const limits: { variable: string; value: number }[] = info.limits;
    const byVariable = Object.fromEntries(limits.map((l) => [l.variable, l.value]));
    expect(byVariable.TESSERA_BODY_LIMIT).toBe(2048);
    expect(byVariable.TESSERA_TEMPLATE_MAX_STEPS).toBe(777);
    expect(byVariable.TESSERA_UPLOAD_LIMIT).toBe(1024 ** 3);
  });

  it("needs a key", async () => {
    const res = await server.app.inject({ method: "GET", url: "/api/server/info" });
    expect(res.statusCode).toBe(401);
  });
});
