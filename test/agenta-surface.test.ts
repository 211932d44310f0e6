import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStubLlm, type StubLlm } from "./support/stub-llm.ts";
import { startTestServer, type TestProject, type TestServer } from "./support/server.ts";

/**
 * The reference's HTTP surface as its own clients use it (Agenta 0.113: its API source and its Python
 * SDK): unknown envelope fields, edits, testcase filters, catalog URIs, the bare-key Authorization
 * header, the vault, the profile and the current project. Request shapes and answers follow the
 * reference's source; test/fixtures/agenta-sdk/ holds the requests its SDK sends, replayed at the end.
 */

const IGNORED = "x-tessera-ignored-fields";

let server: TestServer;
let p: TestProject;
let llm: StubLlm;

beforeAll(async () => {
  llm = await startStubLlm();
  // The provider's address comes from the environment; its key must come from the vault.
  process.env.OPENAI_BASE_URL = llm.baseUrl;
  delete process.env.OPENAI_API_KEY;
  server = await startTestServer({ TESSERA_ALLOW_PRIVATE_HOOKS: "true", TESSERA_SECRET_KEY: "agenta-surface-secret" });
  p = await server.project();
});
afterAll(async () => {
  await server.close();
  await llm.close();
});

const unique = (base: string) => `${base}-${crypto.randomUUID().slice(0, 8)}`;

/** Runs the hosted completion service with `model` as the project behind `key`. */
const complete = (key: string, model: string) => server.app.inject({
  method: "POST", url: "/services/completion/v0/invoke", headers: { authorization: `ApiKey ${key}` },
  payload: { data: { inputs: {}, parameters: { prompt: { messages: [{ role: "user", content: "ping" }], llm_config: { model } } } } },
});

describe("unknown envelope fields are ignored and named (item 8)", () => {
  it("a revision query filter with a variant id the reference's model does not have", async () => {
    const wf = (await p.ok("POST", "/simple/workflows/", { workflow: { slug: unique("wf"), data: { uri: "agenta:builtin:chat:v0" } } })).workflow;
    const res = await p.call("POST", "/workflows/revisions/query", { workflow_revision: { workflow_variant_id: wf.variant_id } });
    expect(res.statusCode).toBe(200);
    expect(res.headers[IGNORED]).toBe("body.workflow_revision.workflow_variant_id");
    expect(res.json().count).toBeGreaterThan(0);
  });

  it("a simple edit carrying slug: the slug is ignored, never renamed", async () => {
    const slug = unique("app");
    const app = (await p.ok("POST", "/simple/applications/", { application: { slug, name: "before" } })).application;
    const res = await p.call("PUT", `/simple/applications/${app.id}`, { application: { id: app.id, slug: "renamed", name: "after" } });
    expect(res.statusCode).toBe(200);
    expect(res.headers[IGNORED]).toBe("body.application.slug");
    expect(res.json().application).toMatchObject({ slug, name: "after" });
  });

  it("is_evaluator inside workflow, extra keys in references and windowing", async () => {
    const created = await p.call("POST", "/workflows/", { workflow: { slug: unique("wf"), name: "w", is_evaluator: true } });
    expect(created.statusCode).toBe(200);
    expect(created.headers[IGNORED]).toBe("body.workflow.is_evaluator");
    const wf = created.json().workflow;
    expect(wf.flags?.is_evaluator ?? false).toBe(false);

    const query = await p.call("POST", "/workflows/query", {
      workflow_refs: [{ id: wf.id, slug: wf.slug, kind: "workflow" }], windowing: { limit: 5, page: 2 },
    });
    expect(query.statusCode).toBe(200);
    expect(query.headers[IGNORED]).toBe("body.workflow_refs.0.kind, body.windowing.page");
    expect(query.json().workflows.map((w: any) => w.id)).toEqual([wf.id]);
  });

  it("a request without unknown fields carries no header", async () => {
    const res = await p.call("POST", "/workflows/query", { workflow: { slug: "none-such" } });
    expect(res.statusCode).toBe(200);
    expect(res.headers[IGNORED]).toBeUndefined();
  });

  it("wrong types, missing fields and unknown keys inside revision data stay 422", async () => {
    const wrong = await p.call("POST", "/workflows/", { workflow: { slug: unique("wf"), name: 42, colour: "red" } });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().detail[0]).toEqual({ loc: ["body", "workflow", "name"], msg: "Input should be of type string", type: "string_type" });

    const missing = await p.call("POST", "/workflows/", { flow: {} });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().detail[0]).toMatchObject({ loc: ["body", "workflow"], type: "missing" });

    const app = (await p.ok("POST", "/simple/applications/", { application: { slug: unique("app") } })).application;
    const data = await p.call("POST", "/applications/revisions/commit", {
      application_revision_commit: { application_id: app.id, data: { uri: "agenta:builtin:chat:v0", prompt: {} } },
    });
    expect(data.statusCode).toBe(422);
    expect(data.json().detail[0]).toMatchObject({ loc: ["body", "application_revision_commit", "data", "prompt"], type: "extra_forbidden" });

    const testset = await p.call("POST", "/simple/testsets/", { testset: { slug: unique("ts"), data: { testcases: [], rows: [] } } });
    expect(testset.statusCode).toBe(422);
    expect(testset.json().detail[0]).toMatchObject({ loc: ["body", "testset", "data", "rows"], type: "extra_forbidden" });
  });
});

describe("edits (item 9)", () => {
  it("a blank or whitespace name is a 422, at every level", async () => {
    const wf = (await p.ok("POST", "/simple/workflows/", { workflow: { slug: unique("wf"), name: "named" } })).workflow;
    for (const name of ["", "   ", "\t\n"]) {
      const res = await p.call("PUT", `/workflows/${wf.id}`, { workflow: { id: wf.id, name } });
      expect(res.statusCode).toBe(422);
      expect(res.json().detail).toBe("workflow.name must contain a non-whitespace character.");
    }
    const variant = await p.call("PUT", `/workflows/variants/${wf.variant_id}`, { workflow_variant: { name: " " } });
    expect(variant.statusCode).toBe(422);
    expect(variant.json().detail).toBe("workflow_variant.name must contain a non-whitespace character.");
    expect((await p.ok("GET", `/workflows/${wf.id}`)).workflow.name).toBe("named");
    // An omitted name still means "no change".
    expect((await p.ok("PUT", `/workflows/${wf.id}`, { workflow: { description: "d" } })).workflow.name).toBe("named");
  });

  it("an archived workflow is a 404 to edits until unarchived", async () => {
    const wf = (await p.ok("POST", "/simple/workflows/", { workflow: { slug: unique("wf"), name: "kept" } })).workflow;
    await p.ok("POST", `/workflows/${wf.id}/archive`);
    const res = await p.call("PUT", `/workflows/${wf.id}`, { workflow: { id: wf.id, name: "changed" } });
    expect(res.statusCode).toBe(404);
    const simple = await p.call("PUT", `/simple/workflows/${wf.id}`, { workflow: { name: "changed" } });
    expect(simple.statusCode).toBe(404);
    await p.ok("POST", `/workflows/${wf.id}/unarchive`);
    expect((await p.ok("PUT", `/workflows/${wf.id}`, { workflow: { id: wf.id, name: "changed" } })).workflow.name).toBe("changed");
  });
});

describe("testcases need a filter (item 10)", () => {
  it("GET /testcases/ and POST /testcases/query without ids or a testset are a 400", async () => {
    const detail = "At least one filter is required: testcase_ids, testset_id, testset_ref/testset_variant_ref/testset_revision_ref.";
    for (const res of [
      await p.call("GET", "/testcases/"),
      await p.call("POST", "/testcases/query", {}),
      await p.call("POST", "/testcases/query", { testcase_ids: [], testset_ref: {}, windowing: { limit: 10 } }),
    ]) {
      expect(res.statusCode).toBe(400);
      expect(res.json().detail).toBe(detail);
    }
    const ts = (await p.ok("POST", "/simple/testsets/", { testset: { slug: unique("ts"), data: { testcases: [{ data: { q: 1 } }] } } })).testset;
    expect((await p.ok("GET", `/testcases/?testset_id=${ts.id}`)).count).toBe(1);
    expect((await p.ok("POST", "/testcases/query", { testset_ref: { id: ts.id } })).count).toBe(1);
  });
});

describe("catalog URIs in the reference's spelling (item 11)", () => {
  it("templates and presets report agenta: URIs; svc: is still accepted on input", async () => {
    const { templates } = await p.ok("GET", "/applications/catalog/templates/");
    expect(templates.map((t: any) => t.data.uri).sort()).toEqual([
      "agenta:builtin:chat:v0", "agenta:builtin:completion:v0", "agenta:custom:code:v0", "agenta:custom:hook:v0",
      "agenta:custom:mock:v0",
    ]);
    const evaluators = (await p.ok("GET", "/evaluators/catalog/templates/")).templates;
    expect(evaluators.every((t: any) => /^agenta:(builtin|custom):[a-z_0-9]+:v0$/.test(t.data.uri))).toBe(true);
    const { presets } = await p.ok("GET", "/applications/catalog/templates/chat/presets/");
    expect(presets.length).toBeGreaterThan(0);
    expect(presets.every((preset: any) => preset.data.uri === "agenta:builtin:chat:v0")).toBe(true);

    const app = (await p.ok("POST", "/simple/applications/", { application: { slug: unique("svc"), data: { uri: "svc:builtin:chat:v0" } } })).application;
    expect(app.data.uri).toBe("svc:builtin:chat:v0");
    expect(app.data.url).toMatch(/\/services\/chat\/v0$/);
    expect(app.data.schemas).toBeTruthy();
  });
});

describe("Authorization without a scheme (item 12)", () => {
  it("accepts the bare key the generated client sends; ApiKey unchanged; other schemes refused", async () => {
    const bare = await server.app.inject({ method: "GET", url: "/api/projects/current", headers: { authorization: p.key } });
    expect(bare.statusCode).toBe(200);
    expect(bare.json().project_id).toBe(p.id);
    const scheme = await server.app.inject({ method: "GET", url: "/api/projects/current", headers: { authorization: `ApiKey ${p.key}` } });
    expect(scheme.statusCode).toBe(200);
    const other = await server.app.inject({ method: "GET", url: "/api/projects/current", headers: { authorization: `Access ${p.key}` } });
    expect(other.statusCode).toBe(401);
    const unknown = await server.app.inject({ method: "GET", url: "/api/projects/current", headers: { authorization: "tsk_AAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB" } });
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json().detail).toBe("Unknown API key");
    const fresh = await server.project();
    const service = await server.app.inject({
      method: "POST", url: "/services/completion/v0/inspect", headers: { authorization: fresh.key }, payload: { data: {} },
    });
    expect(service.statusCode).toBe(200);
  });
});

describe("vault secrets in the reference's shape (item 13)", () => {
  it("creates, lists, reads, updates and deletes a provider key, never returning it", async () => {
    const q = await server.project();
    const created = await q.ok("POST", "/secrets/", {
      header: { name: "OpenAI", description: "team key" },
      secret: { kind: "provider_key", data: { kind: "openai", provider: { key: "sk-vault-openai-1234" } } },
    });
    expect(created).toMatchObject({
      kind: "provider_key", header: { name: "OpenAI", description: "team key" }, data: { kind: "openai", provider: { key: "********" } },
    });
    expect(created.slug).toMatch(/^openai-[0-9a-f]{12}$/);
    expect(created.lifecycle.created_at).toBeTruthy();

    const listed = await q.ok("GET", "/secrets/");
    expect(listed).toEqual([created]);
    expect(JSON.stringify(listed)).not.toContain("sk-vault");
    expect(await q.ok("GET", `/secrets/${created.id}`)).toEqual(created);
    expect(await q.ok("GET", `/secrets/${created.slug}`)).toEqual(created);

    // Sending the record back as read (masked key) keeps the stored key.
    const renamed = await q.ok("PUT", `/secrets/${created.id}`, { header: { name: "OpenAI prod" }, secret: created.kind && { kind: created.kind, data: created.data } });
    expect(renamed).toMatchObject({ header: { name: "OpenAI prod", description: "team key" }, data: { kind: "openai" } });
    const res = await complete(q.key, "openai/gpt-4o-mini");
    expect(res.statusCode).toBe(200);
    expect(llm.requests.at(-1)!.headers.authorization).toBe("Bearer sk-vault-openai-1234");

    const deleted = await q.call("DELETE", `/secrets/${created.id}`);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe("");
    expect((await q.call("GET", `/secrets/${created.id}`)).json()).toEqual({ detail: "Secret not found" });
    expect(await q.ok("GET", "/secrets/")).toEqual([]);
    // Another project's id is not found either.
    expect((await p.call("DELETE", `/secrets/${created.id}`)).statusCode).toBe(404);
  });

  it("a custom provider answers to {name}/{kind}/{model} in the hosted runtime", async () => {
    const q = await server.project();
    const created = await q.ok("POST", "/secrets/", {
      header: { name: "my-llm" },
      secret: { kind: "custom_provider", data: { kind: "custom", provider: { url: llm.baseUrl, key: "sk-vault-custom" }, models: [{ slug: "stub-model" }] } },
    });
    expect(created.data).toEqual({
      kind: "custom", provider: { url: llm.baseUrl, key: "********" }, models: [{ slug: "stub-model" }],
      provider_slug: "my-llm", model_keys: ["my-llm/custom/stub-model"],
    });
    const res = await complete(q.key, "my-llm/custom/stub-model");
    expect(res.statusCode).toBe(200);
    const seen = llm.requests.at(-1)!;
    expect(seen.headers.authorization).toBe("Bearer sk-vault-custom");
    expect(seen.body.model).toBe("stub-model");
  });

  it("keeps the older {secret: {provider, api_key}} shape as an alias, answered in the reference's shape", async () => {
    const q = await server.project();
    const created = await q.ok("POST", "/secrets/", { secret: { provider: "custom", slug: "local-llm", api_key: "sk-older", base_url: llm.baseUrl } });
    expect(created).toMatchObject({ slug: "local-llm", kind: "custom_provider", data: { kind: "custom", provider: { url: llm.baseUrl, key: "********" } } });
    const res = await complete(q.key, "local-llm/stub-model");
    expect(res.statusCode).toBe(200);
    expect(llm.requests.at(-1)!.headers.authorization).toBe("Bearer sk-older");
  });

  it("reads secrets stored before the vault shape: a key by its slug, an endpoint as a custom provider", async () => {
    const q = await server.project();
    const { SecretCipher } = await import("../src/secrets/cipher.ts");
    const cipher = new SecretCipher("agenta-surface-secret");
    const id = crypto.randomUUID();
    // As 004_runtime.sql stored it, and 008_vault_secrets.sql classified it.
    await server.db.query(
      `INSERT INTO provider_secrets (id, project_id, slug, provider, base_url, encrypted_key, kind)
       VALUES ($1, $2, 'old-llm', 'custom', $3, $4, 'custom_provider')`,
      [id, q.id, llm.baseUrl, cipher.encrypt("sk-before")],
    );
    expect(await q.ok("GET", "/secrets/")).toEqual([expect.objectContaining({
      id, slug: "old-llm", kind: "custom_provider",
      data: { kind: "custom", provider: { url: llm.baseUrl, key: "********" }, models: [], provider_slug: "old-llm", model_keys: [] },
    })]);
    const res = await complete(q.key, "old-llm/stub-model");
    expect(res.statusCode).toBe(200);
    expect(llm.requests.at(-1)!.headers.authorization).toBe("Bearer sk-before");
  });

  it("answers 422 naming what is wrong, without echoing the key", async () => {
    const bad = [
      [{ secret: { kind: "provider_key", data: { kind: "openai", provider: {} } } }, ["body", "secret", "data", "provider", "key"]],
      [{ secret: { kind: "provider_key", data: { kind: "nope", provider: { key: "sk-echo" } } } }, ["body", "secret", "data", "kind"]],
      [{ secret: { kind: "sso_provider", data: { provider: { key: "sk-echo" } } } }, ["body", "secret", "kind"]],
      [{ secret: { kind: "custom_provider", data: { kind: "custom", provider: { url: "x", key: "sk-echo" }, models: [] } }, header: { name: "c" } },
        ["body", "secret", "data", "provider", "url"]],
      [{ secret: { kind: "custom_provider", data: { kind: "custom", provider: { key: "sk-echo" }, models: [] } } }, ["body", "header", "name"]],
    ] as const;
    for (const [body, loc] of bad) {
      const res = await p.call("POST", "/secrets/", body);
      expect(res.statusCode).toBe(422);
      expect(res.json().detail[0].loc).toEqual(loc);
      expect(res.body).not.toContain("sk-echo");
    }
  });

  it("answers the SDK's permission checks for services and secrets", async () => {
    const check = (query: string, project = p) =>
      server.app.inject({ method: "GET", url: `/api/access/permissions/check?${query}`, headers: { authorization: `ApiKey ${project.key}` } });
    for (const q of ["action=view_secret&resource_type=local_secrets", `action=run_service&resource_type=service&scope_type=project&scope_id=${p.id}`]) {
      const res = await check(q);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ effect: "allow", credentials: `ApiKey ${p.key}` });
    }
    const other = await server.project();
    for (const q of ["action=view_secret", "action=fly&resource_type=service", "action=view_secret&resource_type=secrets",
      `action=run_service&resource_type=service&scope_type=project&scope_id=${other.id}`]) {
      const res = await check(q);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ detail: "Forbidden" });
    }
  });
});

describe("profile and current project (item 14)", () => {
  it("GET /profile answers the reference's User", async () => {
    const profile = await p.ok("GET", "/profile");
    expect(profile).toEqual({
      id: p.userId, uid: p.userId, email: expect.stringMatching(/@test\.local$/), username: expect.any(String),
      created_at: expect.any(String), updated_at: expect.any(String),
    });
  });

  it("GET /projects/current answers the reference's ProjectsResponse", async () => {
    const project = await p.ok("GET", "/projects/current");
    const [row] = await server.db.query<{ workspace_id: string; organization_id: string; name: string }>(
      "SELECT workspace_id, organization_id, name FROM projects WHERE id = $1", [p.id]);
    expect(project).toEqual({
      organization_id: row.organization_id, organization_name: expect.any(String),
      workspace_id: row.workspace_id, workspace_name: "Default workspace",
      project_id: p.id, project_name: row.name, is_default_project: true, user_role: "owner", is_demo: false,
    });
    expect(await p.ok("GET", `/projects/${p.id}`)).toEqual(project);
    expect(await p.ok("GET", "/projects/")).toEqual([project]);
    const other = await server.project();
    expect((await p.call("GET", `/projects/${other.id}`)).statusCode).toBe(404);
  });
});

interface FixtureRequest {
  method: string;
  path: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: unknown;
  expect: {
    status: number;
    equals?: Record<string, unknown>;
    present?: string[];
    list_items_present?: string[];
    length?: number;
    absent_text?: string;
  };
  capture?: Record<string, string>;
}

const fixture = (name: string): { requests: FixtureRequest[] } =>
  JSON.parse(readFileSync(new URL(`./fixtures/agenta-sdk/${name}.json`, import.meta.url), "utf8"));

const at = (value: any, path: string) => path.split(".").reduce((node, key) => (node == null ? undefined : node[key]), value);

function fill<T>(value: T, vars: Record<string, string>): T {
  return JSON.parse(JSON.stringify(value).replace(/\{\{(\w+)\}\}/g, (_, name) => {
    if (!(name in vars)) throw new Error(`fixture variable ${name} is not set`);
    return vars[name];
  }));
}

describe("requests the Python SDK sends, replayed (test/fixtures/agenta-sdk)", () => {
  it("ag.init, a service's auth and vault middlewares and the generated client, in the order a deployment makes them", async () => {
    const q = await server.project();
    const vars: Record<string, string> = { api_key: q.key, project_id: q.id, user_id: q.userId };
    for (const name of ["init-resolve-scopes", "service-auth-middleware", "generated-client-secrets", "vault-middleware"]) {
      for (const raw of fixture(name).requests) {
        const r = fill(raw, vars);
        const res = await server.app.inject({
          method: r.method as "GET", url: r.path, query: r.query, headers: r.headers,
          ...(r.body === undefined ? {} : { payload: r.body as object }),
        });
        const where = `${name}: ${r.method} ${r.path}`;
        expect(res.statusCode, where).toBe(r.expect.status);
        const body = res.body ? res.json() : undefined;
        for (const [path, value] of Object.entries(r.expect.equals ?? {})) expect(at(body, path), `${where} ${path}`).toEqual(value);
        for (const path of r.expect.present ?? []) expect(at(body, path), `${where} ${path}`).toBeDefined();
        if (r.expect.length !== undefined) expect(body, where).toHaveLength(r.expect.length);
        if (r.expect.list_items_present) {
          expect(body.length, where).toBeGreaterThan(0);
          for (const item of body) for (const path of r.expect.list_items_present) expect(at(item, path), `${where} ${path}`).toBeDefined();
        }
        if (r.expect.absent_text) expect(res.body, where).not.toContain(r.expect.absent_text);
        for (const [variable, path] of Object.entries(r.capture ?? {})) vars[variable] = String(at(body, path));
      }
    }
  });
});
