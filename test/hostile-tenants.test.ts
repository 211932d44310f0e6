import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStubLlm, type StubLlm } from "./support/stub-llm.ts";
import { startTestServer, type TestProject, type TestServer } from "./support/server.ts";

/**
 * One server shared by tenants who do not trust each other: a project with a valid key cannot take the
 * operator's provider key, nor lose another request's deployment.
 */
let server: TestServer;
let p: TestProject;
let operator: StubLlm;
let tenant: StubLlm;

beforeAll(async () => {
  operator = await startStubLlm();
  tenant = await startStubLlm();
  process.env.OPENAI_BASE_URL = operator.baseUrl;
  process.env.OPENAI_API_KEY = "sk-operator";
  server = await startTestServer({ TESSERA_ALLOW_PRIVATE_HOOKS: "true", TESSERA_SECRET_KEY: "hostile-tenants" });
  p = await server.project();
});

afterAll(async () => {
  await server.close();
  await operator.close();
  await tenant.close();
});

const unique = (prefix: string) => `${prefix}-${crypto.randomUUID().slice(0, 8)}`;

const complete = (project: TestProject, model: string) => server.app.inject({
  method: "POST", url: "/services/completion/v0/invoke", headers: { authorization: `ApiKey ${project.key}` },
  payload: { data: { inputs: {}, parameters: { prompt: { messages: [{ role: "user", content: "ping" }], llm_config: { model } } } } },
});

const customProvider = (name: string, url: string, key?: string) => ({
  header: { name },
  secret: { kind: "custom_provider", data: { kind: "custom", provider: { url, ...(key ? { key } : {}) }, models: [{ slug: "gpt-4o-mini" }] } },
});

describe("the operator's provider key", () => {
  it("is never sent to a base URL a project's secret names", async () => {
    const q = await server.project();
    await q.ok("POST", "/secrets/", customProvider("openai", tenant.baseUrl));
    const seen = tenant.requests.length;
    const res = await complete(q, "gpt-4o-mini");
    expect(res.statusCode).toBe(400);
    expect(res.json().status.message).toMatch(/own base URL .* no API key.*OPENAI_API_KEY/);
    expect(tenant.requests.length).toBe(seen);
    expect(JSON.stringify(tenant.requests)).not.toContain("sk-operator");
  });

  it("goes with the tenant's own key to the tenant's URL, and the operator's to the operator's URL", async () => {
    const q = await server.project();
    await q.ok("POST", "/secrets/", customProvider("openai", tenant.baseUrl, "sk-tenant"));
    expect((await complete(q, "gpt-4o-mini")).statusCode).toBe(200);
    expect(tenant.requests.at(-1)!.headers.authorization).toBe("Bearer sk-tenant");

    const r = await server.project();
    expect((await complete(r, "gpt-4o-mini")).statusCode).toBe(200);
    expect(operator.requests.at(-1)!.headers.authorization).toBe("Bearer sk-operator");
  });

  it("is used when a secret names the operator's own address", async () => {
    const q = await server.project();
    await q.ok("POST", "/secrets/", customProvider("openai", `${operator.baseUrl}/`));
    expect((await complete(q, "gpt-4o-mini")).statusCode).toBe(200);
    expect(operator.requests.at(-1)!.headers.authorization).toBe("Bearer sk-operator");
  });

  it("holds for every known provider", async () => {
    const q = await server.project();
    await q.ok("POST", "/secrets/", customProvider("mistral", tenant.baseUrl));
    process.env.MISTRAL_API_KEY = "sk-operator-mistral";
    try {
      const seen = tenant.requests.length;
      const res = await complete(q, "mistral/gpt-4o-mini");
      expect(res.statusCode).toBe(400);
      expect(res.json().status.message).toMatch(/MISTRAL_API_KEY/);
      expect(tenant.requests.length).toBe(seen);
    } finally {
      delete process.env.MISTRAL_API_KEY;
    }
  });
});
