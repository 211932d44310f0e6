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

const environmentKeys = async (project: TestProject, slug: string) => {
  const env = await project.ok("POST", "/environments/revisions/retrieve", { environment_ref: { slug } });
  return { id: env.environment_revision.id as string, keys: Object.keys(env.environment_revision.data.references ?? {}) };
};

const newApplications = (project: TestProject, count: number) => Promise.all(Array.from({ length: count }, async () =>
  (await project.ok("POST", "/simple/applications/", { application: { slug: unique("app"), data: { uri: "svc:builtin:chat:v0" } } })).application));

describe("concurrent deploys", () => {
  it("keep every deployment: 16 applications deployed to one environment at once", async () => {
    const apps = await newApplications(p, 16);
    // On PostgreSQL the deploys go through two pools, as two server processes would.
    const second = process.env.DATABASE_URL ? await startTestServer() : server;
    try {
      const answers = await Promise.all(apps.map((app, i) => (i % 2 ? second : server).app.inject({
        method: "POST", url: "/api/applications/revisions/deploy", headers: { authorization: `ApiKey ${p.key}` },
        payload: { application_ref: { slug: app.slug }, environment_ref: { slug: "staging" } },
      })));
      expect(answers.map((a) => a.statusCode)).toEqual(apps.map(() => 200));
    } finally {
      if (second !== server) await second.close();
    }
    const { keys } = await environmentKeys(p, "staging");
    expect(keys.sort()).toEqual(apps.map((app) => `${app.slug}.revision`).sort());
  });

  it("answer 409 naming both revisions when If-Match names a revision that is no longer the latest", async () => {
    const q = await server.project();
    const [first, second] = await newApplications(q, 2);
    const before = await environmentKeys(q, "development");
    const deploy = (slug: string, ifMatch: string) => q.call("POST", "/applications/revisions/deploy",
      { application_ref: { slug }, environment_ref: { slug: "development" } }, { "if-match": ifMatch });
    expect((await deploy(first.slug, `"${before.id}"`)).statusCode).toBe(200);
    const after = await environmentKeys(q, "development");
    const stale = await deploy(second.slug, `"${before.id}"`);
    expect(stale.statusCode).toBe(409);
    expect(stale.json().detail).toContain(before.id);
    expect(stale.json().detail).toContain(after.id);
    expect((await environmentKeys(q, "development")).keys).toEqual([`${first.slug}.revision`]);
    expect((await deploy(second.slug, after.id)).statusCode).toBe(200);
  });
});

describe("a commit that names the revision it builds on", () => {
  it("is refused with 409 when another commit came first, and accepted while its base is the latest", async () => {
    const q = await server.project();
    const [app] = await newApplications(q, 1);
    const commit = (ifMatch: string, temperature: number) => q.call("POST", "/applications/revisions/commit", {
      application_revision_commit: {
        application_variant_id: app.variant_id,
        data: { uri: "svc:builtin:chat:v0", parameters: { prompt: { llm_config: { model: "gpt-4o-mini", temperature } } } },
      },
    }, { "if-match": ifMatch });
    const base = app.revision_id as string;
    const first = await commit(`"${base}"`, 0.1);
    expect(first.statusCode).toBe(200);
    const latest = first.json().application_revision.id;
    const lost = await commit(`"${base}"`, 0.2);
    expect(lost.statusCode).toBe(409);
    expect(lost.json().detail).toMatch(new RegExp(`expected revision ${base}.*latest is ${latest}`));
    expect((await commit(`W/"${latest}"`, 0.3)).statusCode).toBe(200);
    expect((await commit("*", 0.4)).statusCode).toBe(200);
    const malformed = await commit("not-a-revision", 0.5);
    expect(malformed.statusCode).toBe(422);
    expect(JSON.stringify(malformed.json().detail)).toContain("if-match");
  });
});
