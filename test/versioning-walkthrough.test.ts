import { describe, expect, it } from "vitest";
import { serverWithProject } from "./support/server.ts";

const { server, p } = await serverWithProject();

const completion = (country: string) => ({
  uri: "svc:builtin:completion:v0",
  parameters: {
    prompt: {
      messages: [
        { role: "system", content: "You are a geography expert." },
        { role: "user", content: `What is the capital of {{${country}}}?` },
      ],
      template_format: "curly",
      llm_config: { model: "gpt-4o-mini", temperature: 0.2, max_tokens: 64, top_p: 1 },
    },
  },
});

describe("the spec's walkthrough: create → commit → log → fork → deploy → retrieve → archive → query", () => {
  let app: any;
  let v1: any;
  let v2: any;

  it("creates a simple application with artifact, default variant and first revision", async () => {
    const res = await p.ok("POST", "/simple/applications/", {
      application: { slug: "geo-qa", name: "Geography QA", flags: { is_application: true }, data: { ...completion("country"), url: "http://evil.example/x" } },
    });
    app = res.application;
    expect(res.count).toBe(1);
    expect(app.slug).toBe("geo-qa");
    expect(app.flags.is_application).toBe(true);
    expect(app.variant_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(app.revision_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(app.data.url).toBe(`${server.config.publicUrl}/services/completion/v0`);
    expect(app.data.schemas.outputs).toBeTruthy();
  });

  it("commits new revisions with versions 2, 3 in the seed's and the reference's wrappers", async () => {
    v1 = (await p.ok("POST", "/applications/revisions/retrieve", { application_revision_ref: { id: app.revision_id } })).application_revision;
    expect(v1.version).toBe("1");
    v2 = (await p.ok("POST", "/applications/revisions/commit", {
      application_revision_commit: { application_variant_id: app.variant_id, message: "lower temperature", data: completion("country") },
    })).application_revision;
    expect(v2.version).toBe("2");
    expect(v2.message).toBe("lower temperature");
    expect(v2.author).toBe(p.userId);
    expect(v2.date).toBeTruthy();
    expect(v2.data.parameters.prompt.llm_config.model).toBe("gpt-4o-mini");
    const v3 = (await p.ok("POST", "/applications/revisions/commit", {
      application_revision: { application_variant_id: app.variant_id, message: "reference wrapper", data: completion("place") },
    })).application_revision;
    expect(v3.version).toBe("3");
  });

  it("never changes a committed revision", async () => {
    const again = (await p.ok("GET", `/applications/revisions/${v2.id}`)).application_revision;
    expect(again.data).toEqual(v2.data);
    // An edit carries metadata only: data in it is an unknown field, ignored (and named) as the reference does.
    const res = await p.call("PUT", `/applications/revisions/${v2.id}`, { application_revision: { data: completion("x") } });
    expect(res.statusCode).toBe(200);
    expect(res.headers["x-tessera-ignored-fields"]).toBe("body.application_revision.data");
    expect(res.json().application_revision.data).toEqual(v2.data);
    const edited = (await p.ok("PUT", `/applications/revisions/${v2.id}`, { application_revision: { name: "renamed", description: "d" } })).application_revision;
    expect(edited.name).toBe("renamed");
    expect(edited.data).toEqual(v2.data);
  });

  it("logs a variant newest first without payload, bounded by depth", async () => {
    const log = await p.ok("POST", "/applications/revisions/log", { application: { application_variant_id: app.variant_id } });
    // Version 0 is the empty revision a simple create seeds the variant with, as the reference does.
    expect(log.application_revisions.map((r: any) => r.version)).toEqual(["3", "2", "1", "0"]);
    expect(log.application_revisions[0].data).toBeUndefined();
    expect(log.application_revisions[0]).toMatchObject({ message: "reference wrapper", author: p.userId });
    const ref = await p.ok("POST", "/applications/revisions/log", { application_revisions: { application_variant_id: app.variant_id, depth: 2 } });
    expect(ref.count).toBe(2);
  });

  it("forks a variant from an existing revision (kind route and the generic /variants/fork)", async () => {
    const fork = (await p.ok("POST", "/applications/variants/fork", {
      application_variant: { slug: "geo-qa.experiment", name: "experiment" },
      application_variant_ref: { id: app.variant_id },
      application_revision_ref: { id: v2.id },
    })).application_variant;
    expect(fork.application_id).toBe(app.id);
    const head = (await p.ok("POST", "/applications/revisions/retrieve", { application_variant_ref: { id: fork.id } })).application_revision;
    // The fork holds the source's lineage up to v2, so its head is v2 there too.
    expect(head.version).toBe("2");
    expect(head.data.parameters).toEqual(v2.data.parameters);
    const generic = await p.ok("POST", "/variants/fork", { variant_ref: { id: app.variant_id }, variant: { slug: "geo-qa.generic" } });
    expect(generic.application_variant.slug).toBe("geo-qa.generic");
  });

  it("deploys to production and retrieves the deployed revision by environment", async () => {
    const dep = await p.ok("POST", "/applications/revisions/deploy", { application_variant_ref: { id: app.variant_id }, environment_ref: { slug: "production" } });
    expect(dep.application_revision.version).toBe("3");
    expect(dep.retrieval_info.selector.key).toBe("geo-qa.revision");
    const got = await p.ok("POST", "/applications/revisions/retrieve", { application_ref: { slug: "geo-qa" }, environment_ref: { slug: "production" } });
    expect(got.application_revision.id).toBe(dep.application_revision.id);
    expect(got.application_revision.data.url).toMatch(/\/services\/completion\/v0$/);
    const byKey = await p.ok("POST", "/applications/revisions/retrieve", { environment_ref: { slug: "production" }, key: "geo-qa.revision" });
    expect(byKey.application_revision.id).toBe(dep.application_revision.id);
    const staging = await p.call("POST", "/applications/revisions/retrieve", { application_ref: { slug: "geo-qa" }, environment_ref: { slug: "staging" } });
    expect(staging.statusCode).toBe(404);
  });

  it("retrieves by every reference form, the most specific winning", async () => {
    const bySlugVersion = await p.ok("POST", "/applications/revisions/retrieve", { application_variant_ref: { id: app.variant_id }, application_revision_ref: { version: 2 } });
    expect(bySlugVersion.application_revision.id).toBe(v2.id);
    const byRevSlug = await p.ok("POST", "/applications/revisions/retrieve", { application_revision_ref: { slug: v2.slug } });
    expect(byRevSlug.application_revision.id).toBe(v2.id);
    const byArtifact = await p.ok("POST", "/applications/revisions/retrieve", { application_ref: { id: app.id } });
    expect(byArtifact.application_revision.version).toBe("3");
    const specific = await p.ok("POST", "/applications/revisions/retrieve", {
      application_revision_ref: { id: v1.id }, application_variant_ref: { id: app.variant_id },
    });
    expect(specific.application_revision.id).toBe(v1.id);
    // An environment reference always takes the environment path: without a key to read, that is a 400.
    const keyless = await p.call("POST", "/applications/revisions/retrieve", {
      application_revision_ref: { id: v1.id }, environment_ref: { slug: "production" },
    });
    expect(keyless.statusCode).toBe(400);
  });

  it("rejects contradicting or incomplete references", async () => {
    const other = (await p.ok("POST", "/simple/applications/", { application: { slug: "other", data: completion("c") } })).application;
    const contradict = await p.call("POST", "/applications/revisions/retrieve", { application_revision_ref: { id: v1.id }, application_variant_ref: { id: other.variant_id } });
    expect(contradict.statusCode).toBe(400);
    const versionOnly = await p.call("POST", "/applications/revisions/retrieve", { application_revision_ref: { version: 1 } });
    expect(versionOnly.statusCode).toBe(400);
    const missing = await p.ok("POST", "/applications/revisions/retrieve", { application_revision_ref: { id: "0190d0d0-0000-7000-8000-000000000000" } });
    expect(missing).toEqual({ count: 0, application_revision: null });
  });

  it("archives: hidden from queries unless include_archived, ids still resolvable, unarchive restores", async () => {
    await p.ok("POST", `/applications/${app.id}/archive`);
    const listed = await p.ok("POST", "/applications/query", {});
    expect(listed.applications.map((a: any) => a.id)).not.toContain(app.id);
    const all = await p.ok("POST", "/applications/query", { include_archived: true });
    expect(all.applications.map((a: any) => a.id)).toContain(app.id);
    const variants = await p.ok("POST", "/applications/variants/query", {});
    expect(variants.application_variants.map((v: any) => v.application_id)).not.toContain(app.id);
    const stillThere = await p.ok("GET", `/applications/revisions/${v1.id}`);
    expect(stillThere.application_revision.id).toBe(v1.id);
    const refused = await p.call("POST", "/applications/revisions/commit", { application_revision_commit: { application_variant_id: app.variant_id, data: completion("x") } });
    expect(refused.statusCode).toBe(409);
    const restored = await p.ok("POST", `/applications/${app.id}/unarchive`);
    expect(restored.application.deleted_at).toBeNull();
    const again = await p.ok("POST", "/simple/applications/query", {});
    expect(again.applications.map((a: any) => a.id)).toContain(app.id);
  });
});

describe("rules that hold for every kind", () => {
  it("answers 409 for a duplicate slug and generates one when omitted", async () => {
    await p.ok("POST", "/workflows/", { workflow: { slug: "dup" } });
    const dup = await p.call("POST", "/workflows/", { workflow: { slug: "dup" } });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().detail).toMatch(/already exists/);
    const generated = await p.ok("POST", "/workflows/", { workflow: { name: "My Flow" } });
    expect(generated.workflow.slug).toMatch(/^my-flow-[0-9a-f]{12}$/);
  });

  it("starts a project with development, staging and production", async () => {
    const envs = await p.ok("POST", "/simple/environments/query", {});
    expect(envs.environments.map((e: any) => e.slug).sort()).toEqual(["development", "production", "staging"]);
    const bare = await server.project({ seedDefaults: false });
    expect((await bare.ok("POST", "/simple/environments/query", {})).count).toBe(0);
  });

  it("keeps projects apart: another project's id is 404", async () => {
    const other = await server.project();
    const created = (await p.ok("POST", "/simple/evaluators/", { evaluator: { slug: "judge", data: { uri: "svc:builtin:auto_exact_match:v0", parameters: { correct_answer_key: "answer" } } } })).evaluator;
    const res = await other.call("GET", `/simple/evaluators/${created.id}`);
    expect(res.statusCode).toBe(404);
    const asApp = await p.call("GET", `/applications/${created.id}`);
    expect(asApp.statusCode).toBe(404);
  });

  it("guards an environment: deploys and commits are refused until unguarded", async () => {
    const env = (await p.ok("POST", "/simple/environments/", { environment: { slug: "locked", data: { references: {} } } })).environment;
    const a = (await p.ok("POST", "/simple/applications/", { application: { slug: "guarded-app", data: completion("c") } })).application;
    await p.ok("POST", `/simple/environments/${env.id}/guard`);
    const refused = await p.call("POST", "/applications/revisions/deploy", { application_ref: { id: a.id }, environment_ref: { slug: "locked" } });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().detail).toMatch(/guarded/);
    const unguarded = await p.ok("POST", `/simple/environments/${env.id}/unguard`);
    expect(unguarded.environment.flags.is_guarded).toBe(false);
    await p.ok("POST", "/applications/revisions/deploy", { application_ref: { id: a.id }, environment_ref: { slug: "locked" } });
    // Created guarded, with its first data: the create's own commits go in, the next deploy is refused.
    const born = (await p.ok("POST", "/simple/environments/", {
      environment: { slug: "born-locked", flags: { is_guarded: true }, data: { references: {} } },
    })).environment;
    expect(born.flags.is_guarded).toBe(true);
    const refusedToo = await p.call("POST", "/applications/revisions/deploy", { application_ref: { id: a.id }, environment_ref: { slug: "born-locked" } });
    expect(refusedToo.statusCode).toBe(409);
  });

  it("pages queries with windowing without repeating or skipping rows while rows are added", async () => {
    const q = await server.project({ seedDefaults: false });
    for (let i = 0; i < 5; i++) await q.ok("POST", "/workflows/", { workflow: { slug: `w${i}` } });
    const first = await q.ok("POST", "/workflows/query", { windowing: { limit: 2 } });
    expect(first.workflows.map((w: any) => w.slug)).toEqual(["w4", "w3"]);
    await q.ok("POST", "/workflows/", { workflow: { slug: "late" } });
    const second = await q.ok("POST", "/workflows/query", { windowing: { limit: 2, next: first.windowing.next } });
    expect(second.workflows.map((w: any) => w.slug)).toEqual(["w2", "w1"]);
    const third = await q.ok("POST", "/workflows/query", { windowing: { limit: 2, next: second.windowing.next } });
    expect(third.workflows.map((w: any) => w.slug)).toEqual(["w0"]);
    expect(third.windowing).toBeNull();
  });

  it("gives every concurrent commit its own version, with no gap", async () => {
    const a = (await p.ok("POST", "/simple/workflows/", { workflow: { slug: "busy", data: { parameters: { n: 0 } } } })).workflow;
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) =>
      p.ok("POST", "/workflows/revisions/commit", { workflow_revision_commit: { workflow_variant_id: a.variant_id, data: { parameters: { n: i + 1 } } } })));
    const versions = results.map((r: any) => Number(r.workflow_revision.version)).sort((x, y) => x - y);
    expect(versions).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
  });

  it("ignores unknown envelope fields, naming them; unknown keys in revision data stay a 422", async () => {
    const res = await p.call("POST", "/applications/", { application: { slug: `colour-${Date.now()}`, colour: "red" } });
    expect(res.statusCode).toBe(200);
    expect(res.headers["x-tessera-ignored-fields"]).toBe("body.application.colour");
    const created = res.json().application;
    const data = await p.call("POST", "/applications/revisions/commit", {
      application_revision_commit: { application_id: created.id, data: { ...completion("x"), colour: "red" } },
    });
    expect(data.statusCode).toBe(422);
    expect(data.json().detail[0]).toMatchObject({ loc: ["body", "application_revision_commit", "data", "colour"], type: "extra_forbidden" });
  });
});

describe("caching of immutable revisions", () => {
  it("tags retrieve and GET responses and answers 304 to If-None-Match; a deploy changes the tag", async () => {
    const q = await server.project();
    const a = (await q.ok("POST", "/simple/applications/", { application: { slug: "cached", data: completion("c") } })).application;
    await q.ok("POST", "/applications/revisions/deploy", { application_ref: { id: a.id }, environment_ref: { slug: "production" } });
    const body = { application_ref: { slug: "cached" }, environment_ref: { slug: "production" } };
    const first = await q.call("POST", "/applications/revisions/retrieve", body);
    const tag = first.headers.etag as string;
    expect(tag).toMatch(/^".+"$/);
    const again = await q.call("POST", "/applications/revisions/retrieve", body, { "if-none-match": tag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe("");
    await q.ok("POST", "/applications/revisions/commit", { application_revision_commit: { application_variant_id: a.variant_id, data: completion("d") } });
    await q.ok("POST", "/applications/revisions/deploy", { application_ref: { id: a.id }, environment_ref: { slug: "production" } });
    const moved = await q.call("POST", "/applications/revisions/retrieve", body, { "if-none-match": tag });
    expect(moved.statusCode).toBe(200);
    expect(moved.json().application_revision.version).toBe("2");
    const byId = await q.call("GET", `/applications/revisions/${a.revision_id}`);
    const notModified = await q.call("GET", `/applications/revisions/${a.revision_id}`, undefined, { "if-none-match": byId.headers.etag as string });
    expect(notModified.statusCode).toBe(304);
  });

  it("resolves the same references written differently alike, before and after a deploy", async () => {
    const q = await server.project();
    const a = (await q.ok("POST", "/simple/applications/", { application: { slug: "spelled", data: completion("c") } })).application;
    await q.ok("POST", "/applications/revisions/deploy", { application_ref: { id: a.id }, environment_ref: { slug: "production" } });
    const json = { "content-type": "application/json" };
    const spellings = [
      '{"application_ref":{"slug":"spelled"},"environment_ref":{"slug":"production"}}',
      '{ "environment_ref": { "slug": "production" }, "application_ref": { "slug": "spelled" } }',
      `{"application_ref":{"id":"${a.id}"},"environment_ref":{"slug":"production"}}`,
    ];
    const versions = async () => Promise.all(spellings.map(async (text) => (await q.call("POST", "/applications/revisions/retrieve", text, json)).json().application_revision.version));
    expect(await versions()).toEqual(["1", "1", "1"]);
    expect(await versions()).toEqual(["1", "1", "1"]);
    await q.ok("POST", "/applications/revisions/commit", { application_revision_commit: { application_variant_id: a.variant_id, data: completion("d") } });
    await q.ok("POST", "/applications/revisions/deploy", { application_ref: { id: a.id }, environment_ref: { slug: "production" } });
    expect(await versions()).toEqual(["2", "2", "2"]);
  });
});

describe("diff and revert", () => {
  it("diffs two revisions as a JSON Patch of data plus changed metadata", async () => {
    const a = (await p.ok("POST", "/simple/applications/", { application: { slug: "diffed", data: completion("country") } })).application;
    const v2 = (await p.ok("POST", "/applications/revisions/commit", {
      application_revision_commit: { application_variant_id: a.variant_id, message: "warmer", data: { ...completion("country"), parameters: { prompt: { ...completion("country").parameters.prompt, llm_config: { model: "gpt-4o", temperature: 0.9, max_tokens: 64, top_p: 1 } } } } },
    })).application_revision;
    const { diff } = await p.ok("POST", "/applications/revisions/diff", { base: { id: a.revision_id }, target: { id: v2.id } });
    expect(diff.base.version).toBe("1");
    expect(diff.target.version).toBe("2");
    expect(diff.data).toEqual([
      { op: "replace", path: "/parameters/prompt/llm_config/model", value: "gpt-4o" },
      { op: "replace", path: "/parameters/prompt/llm_config/temperature", value: 0.9 },
    ]);
    expect(diff.metadata.message).toEqual({ from: null, to: "warmer" });
    const byVersion = await p.ok("POST", "/applications/revisions/diff", {
      base: { version: 1, application_variant_ref: { id: a.variant_id } }, target: { version: 2, application_variant_ref: { id: a.variant_id } },
    });
    expect(byVersion.diff.data).toHaveLength(2);
  });

  it("reverts by committing a new revision equal to an older one, recording the source", async () => {
    const a = (await p.ok("POST", "/simple/applications/", { application: { slug: "reverted", data: completion("one") } })).application;
    await p.ok("POST", "/applications/revisions/commit", { application_revision_commit: { application_variant_id: a.variant_id, data: completion("two") } });
    const reverted = (await p.ok("POST", "/applications/revisions/revert", { application_revision_ref: { id: a.revision_id } })).application_revision;
    expect(reverted.version).toBe("3");
    expect(reverted.message).toContain(a.revision_id);
    expect(reverted.data.parameters).toEqual(completion("one").parameters);
    const log = await p.ok("POST", "/applications/revisions/log", { application: { application_variant_id: a.variant_id } });
    expect(log.application_revisions.map((r: any) => r.version)).toEqual(["3", "2", "1", "0"]);
  });
});

describe("embedded references", () => {
  it("inlines @ag.embed references (with a selector) and reports what it resolved", async () => {
    const snippet = (await p.ok("POST", "/simple/workflows/", { workflow: { slug: "shared-prompt", data: { parameters: { prompt: { messages: [{ role: "system", content: "Be brief." }] } } } } })).workflow;
    const a = (await p.ok("POST", "/simple/applications/", {
      application: { slug: "embedding", data: { uri: "svc:builtin:chat:v0", parameters: { prompt: { "@ag.embed": { "@ag.references": { workflow_revision: { id: snippet.revision_id } }, "@ag.selector": { path: "parameters.prompt" } } } } } },
    })).application;
    const res = await p.ok("POST", "/applications/revisions/resolve", { application_ref: { id: a.id } });
    expect(res.application_revision.data.parameters.prompt).toEqual({ messages: [{ role: "system", content: "Be brief." }] });
    expect(res.resolution_info).toMatchObject({ embeds_resolved: 1, depth_reached: 1, errors: [] });
    const broken = { "@ag.embed": { "@ag.references": { workflow_revision: { id: "0190d0d0-0000-7000-8000-000000000000" } } } };
    const refused = await p.call("POST", "/applications/revisions/resolve", { application_revision: { data: { parameters: { x: broken } } } });
    expect(refused.statusCode).toBe(400);
    const kept = await p.ok("POST", "/applications/revisions/resolve", { application_revision: { data: { parameters: { x: broken } } }, error_policy: "keep" });
    expect(kept.application_revision.data.parameters.x).toEqual(broken);
    expect(kept.resolution_info.errors).toHaveLength(1);
  });

  it("resolves any workflow revision through the applications and evaluators routes, as the reference fetches it", async () => {
    const base = (await p.ok("POST", "/simple/workflows/", { workflow: { slug: "app-base", data: { parameters: { prompt: "app-prompt-value" } } } })).workflow;
    const embed = { "@ag.embed": { "@ag.references": { workflow_revision: { id: base.revision_id } }, "@ag.selector": { path: "parameters.prompt" } } };
    // A workflow created with neither is_application nor is_evaluator, as the reference's SDK test creates it.
    const plain = (await p.ok("POST", "/simple/workflows/", { workflow: { slug: "plain-workflow", data: { parameters: { config: embed } } } })).workflow;
    for (const kind of ["application", "evaluator"]) {
      const res = await p.ok("POST", `/${kind}s/revisions/resolve`, { [`${kind}_revision_ref`]: { id: plain.revision_id, slug: null, version: null } });
      expect(res[`${kind}_revision`].data.parameters.config, kind).toBe("app-prompt-value");
      expect(res.resolution_info.embeds_resolved).toBe(1);
    }
    const testset = (await p.ok("POST", "/simple/testsets/", { testset: { slug: "not-a-workflow", data: { testcases: [{ data: { a: "1" } }] } } })).testset;
    expect((await p.call("POST", "/applications/revisions/resolve", { application_revision_ref: { id: testset.revision_id } })).statusCode).toBe(404);
  });
});

describe("query filters and compression", () => {
  it("filters by flags, tags and meta (subset match) and by slugs", async () => {
    const q = await server.project({ seedDefaults: false });
    await q.ok("POST", "/workflows/", { workflow: { slug: "a", tags: { team: "search", tier: "gold" }, meta: { owner: { name: "ana" } } } });
    await q.ok("POST", "/workflows/", { workflow: { slug: "b", tags: { team: "search" }, flags: { is_snippet: true } } });
    await q.ok("POST", "/workflows/", { workflow: { slug: "c", tags: { team: "ads" } } });
    const slugs = async (body: object) => (await q.ok("POST", "/workflows/query", body)).workflows.map((w: any) => w.slug).sort();
    expect(await slugs({ workflow: { tags: { team: "search" } } })).toEqual(["a", "b"]);
    expect(await slugs({ workflow: { tags: { team: "search", tier: "gold" } } })).toEqual(["a"]);
    expect(await slugs({ workflow: { meta: { owner: { name: "ana" } } } })).toEqual(["a"]);
    expect(await slugs({ workflow: { flags: { is_snippet: true } } })).toEqual(["b"]);
    expect(await slugs({ workflow: { flags: { is_snippet: false } } })).toEqual(["a", "c"]);
    expect(await slugs({ workflow_refs: [{ slug: "c" }, { slug: "a" }] })).toEqual(["a", "c"]);
    expect(await slugs({ workflow: { slugs: ["b", "c"] } })).toEqual(["b", "c"]);
  });

  it("compresses large answers when the client asks", async () => {
    const res = await p.call("POST", "/applications/query", {}, { "accept-encoding": "gzip" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-encoding"]).toBe("gzip");
  });
});
