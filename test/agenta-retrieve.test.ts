import { beforeAll, describe, expect, it } from "vitest";
import { migrate } from "../src/db/migrate.ts";
import { uuidv7 } from "../src/ids/uuid-v7.ts";
import { emptyDatabase } from "./support/empty-database.ts";
import { serverWithProject } from "./support/server.ts";

// The reference's retrieve contract (api/oss/src/apis/fastapi/*/router.py and core/*/service.py of
// Agenta 0.113), item by item, in the request shapes its clients send.

const { server, p } = await serverWithProject();

const chat = (text: string) => ({
  uri: "agenta:builtin:chat:v0",
  parameters: { prompt: { messages: [{ role: "system", content: text }], llm_config: { model: "gpt-4o-mini" } } },
});
const MISSING = "0190d0d0-0000-7000-8000-000000000000";

/** A simple artifact of `plural`, answered as `{id, slug, variant_id, revision_id, …}`. */
async function simple(plural: string, key: string, body: Record<string, unknown>) {
  return (await p.ok("POST", `/simple/${plural}/`, { [key]: body }))[key];
}

describe("1. retrieval_info on every retrieve answer", () => {
  it("answers the artifact, variant and revision references of a direct retrieve, for every kind", async () => {
    const cases: [string, string, Record<string, unknown>][] = [
      ["workflows", "workflow", { slug: "ri-wf", data: chat("w") }],
      ["applications", "application", { slug: "ri-app", data: chat("a") }],
      ["evaluators", "evaluator", { slug: "ri-ev", data: { uri: "agenta:builtin:auto_exact_match:v0", parameters: { correct_answer_key: "x" } } }],
      ["environments", "environment", { slug: "ri-env", data: { references: {} } }],
      ["testsets", "testset", { slug: "ri-ts", data: { testcases: [{ data: { q: 1 } }] } }],
    ];
    for (const [plural, n, body] of cases) {
      const created = await simple(plural, n, body);
      const res = await p.ok("POST", `/${plural}/revisions/retrieve`, { [`${n}_ref`]: { slug: created.slug } });
      const rev = res[`${n}_revision`];
      expect(res.count).toBe(1);
      expect(res.retrieval_info).toEqual({
        references: {
          [n]: { id: created.id, slug: created.slug },
          [`${n}_variant`]: { id: created.variant_id, slug: rev.variant_slug },
          [`${n}_revision`]: { id: created.revision_id, slug: rev.slug, version: "1" },
        },
      });
    }
  });
});

describe("2. resolve: true inlines embeds on retrieve", () => {
  it("inlines object and string embeds and reports resolution_info; zero counts when there are none", async () => {
    const base = await simple("workflows", "workflow", { slug: "rs-base", data: chat("Be brief.") });
    const embedding = await simple("applications", "application", {
      slug: "rs-app",
      data: {
        uri: "agenta:builtin:chat:v0",
        parameters: {
          system: { "@ag.embed": { "@ag.references": { workflow_revision: { id: base.revision_id } }, "@ag.selector": { path: "parameters.prompt.messages.0.content" } } },
          note: `Rules: @ag.embed[@ag.references[workflow.slug=rs-base], @ag.selector[path=parameters.prompt.llm_config.model]] apply.`,
        },
      },
    });
    const plain = await p.ok("POST", "/applications/revisions/retrieve", { application_ref: { slug: "rs-app" } });
    expect(plain.application_revision.data.parameters.note).toContain("@ag.embed[");
    expect(plain.resolution_info).toBeUndefined();

    const res = await p.ok("POST", "/applications/revisions/retrieve", { application_ref: { id: embedding.id }, resolve: true });
    expect(res.application_revision.data.parameters).toEqual({ system: "Be brief.", note: "Rules: gpt-4o-mini apply." });
    expect(res.resolution_info).toEqual({
      // In the stored order of the keys (jsonb: shorter keys first).
      references_used: [{ workflow: { slug: "rs-base" } }, { workflow_revision: { id: base.revision_id } }],
      depth_reached: 1,
      embeds_resolved: 2,
      errors: [],
    });
    // Resolving never changes what is stored.
    const again = await p.ok("POST", "/applications/revisions/retrieve", { application_ref: { id: embedding.id } });
    expect(again.application_revision.data.parameters.system["@ag.embed"]).toBeDefined();

    const none = await p.ok("POST", "/workflows/revisions/retrieve", { workflow_ref: { slug: "rs-base" }, resolve: true });
    expect(none.resolution_info).toEqual({ references_used: [], depth_reached: 0, embeds_resolved: 0, errors: [] });
  });

  it("lets the application and evaluator endpoints read a plain workflow's revision", async () => {
    const wf = await simple("workflows", "workflow", { slug: "rs-plain", data: chat("plain") });
    for (const n of ["application", "evaluator"]) {
      const res = await p.ok("POST", `/${n}s/revisions/retrieve`, { [`${n}_revision_ref`]: { id: wf.revision_id }, resolve: true });
      expect(res.count).toBe(1);
      expect(res[`${n}_revision`].id).toBe(wf.revision_id);
      expect(res.retrieval_info.references[`${n}_revision`]).toEqual({ id: wf.revision_id, slug: res[`${n}_revision`].slug, version: "1" });
    }
  });
});

describe("3. a direct lookup that finds nothing answers count 0", () => {
  it("answers 200 {count: 0, <kind>_revision: null} for unknown ids and slugs, another project's revision and an empty variant", async () => {
    const other = await server.project();
    const theirs = (await other.ok("POST", "/simple/workflows/", { workflow: { slug: "theirs", data: chat("t") } })).workflow;
    const empty = { count: 0, workflow_revision: null };
    expect(await p.ok("POST", "/workflows/revisions/retrieve", { workflow_revision_ref: { id: MISSING } })).toEqual(empty);
    expect(await p.ok("POST", "/workflows/revisions/retrieve", { workflow_revision_ref: { id: theirs.revision_id } })).toEqual(empty);
    expect(await p.ok("POST", "/workflows/revisions/retrieve", { workflow_ref: { slug: "not-created-yet" } })).toEqual(empty);
    expect(await p.ok("POST", "/testsets/revisions/retrieve", { testset_ref: { slug: "nope" } })).toEqual({ count: 0, testset_revision: null });

    const app = (await p.ok("POST", "/applications/", { application: { slug: "no-commit-yet" } })).application;
    const variant = (await p.ok("POST", "/applications/variants/", { application_variant: { application_id: app.id, slug: "no-commit-yet.v" } })).application_variant;
    expect(await p.ok("POST", "/applications/revisions/retrieve", { application_variant_ref: { id: variant.id } }))
      .toEqual({ count: 0, application_revision: null });
  });

  it("keeps 404 for environment-backed lookups", async () => {
    const missingEnv = await p.call("POST", "/applications/revisions/retrieve", { environment_ref: { slug: "nowhere" }, key: "x.revision" });
    expect(missingEnv.statusCode).toBe(404);
    const emptyKey = await p.call("POST", "/applications/revisions/retrieve", { environment_ref: { slug: "production" }, key: "nothing.revision" });
    expect(emptyKey.statusCode).toBe(404);
  });
});

describe("4. a version counts on the artifact's default variant", () => {
  it("finds {<kind>_ref, <kind>_revision_ref: {version}} on the default variant", async () => {
    const app = await simple("applications", "application", { slug: "ver-app", data: chat("one") });
    await p.ok("POST", "/applications/revisions/commit", { application_revision: { application_variant_id: app.variant_id, data: chat("two") } });
    for (const version of ["1", 1, "v1"]) {
      const res = await p.ok("POST", "/applications/revisions/retrieve", { application_ref: { slug: "ver-app" }, application_revision_ref: { version } });
      expect(res.application_revision.data.parameters.prompt.messages[0].content).toBe("one");
    }
    const byId = await p.ok("POST", "/applications/revisions/retrieve", { application_ref: { id: app.id }, application_revision_ref: { version: "2" } });
    expect(byId.application_revision.data.parameters.prompt.messages[0].content).toBe("two");
  });

  it("reads environment_ref on /environments/revisions/retrieve as the environment itself: its latest revision", async () => {
    const app = await simple("applications", "application", { slug: "env-latest-app", data: chat("x") });
    await p.ok("POST", "/applications/revisions/deploy", { application_ref: { slug: app.slug }, environment_ref: { slug: "staging" } });
    const res = await p.ok("POST", "/environments/revisions/retrieve", { environment_ref: { slug: "staging" } });
    expect(res.environment_revision.data.references["env-latest-app.revision"].application_revision.id).toBe(app.revision_id);
    expect(res.retrieval_info.references.environment.slug).toBe("staging");
    const v1 = await p.ok("POST", "/environments/revisions/retrieve", { environment_ref: { slug: "staging" }, environment_revision_ref: { version: "1" } });
    expect(v1.environment_revision.data).toEqual({ references: {} });
  });
});

describe("5. environment-backed policy, in order", () => {
  let app: any;
  let second: any;
  beforeAll(async () => {
    app = await simple("applications", "application", { slug: "pol-app", data: chat("deployed") });
    second = (await p.ok("POST", "/applications/revisions/commit", { application_revision: { application_variant_id: app.variant_id, data: chat("later") } })).application_revision;
    await p.ok("POST", "/applications/revisions/deploy", { application_revision_ref: { id: app.revision_id }, environment_ref: { slug: "development" } });
  });

  it("takes the environment path whenever an environment ref is given, deriving the key from the slug", async () => {
    const res = await p.ok("POST", "/applications/revisions/retrieve", { application_ref: { slug: "pol-app" }, environment_ref: { slug: "development" } });
    expect(res.application_revision.id).toBe(app.revision_id);
    expect(res.retrieval_info.selector).toEqual({ key: "pol-app.revision" });
    expect(res.retrieval_info.references.application_revision).toEqual({ id: app.revision_id, slug: res.application_revision.slug, version: "1" });
    expect(Object.keys(res.retrieval_info.references)).toEqual(
      ["environment", "environment_variant", "environment_revision", "application", "application_variant", "application_revision"],
    );
    const byId = await p.ok("POST", "/applications/revisions/retrieve", { application_ref: { id: app.id }, environment_ref: { slug: "development" } });
    expect(byId.application_revision.id).toBe(app.revision_id);
  });

  it("answers 400 for a missing key that cannot be derived, before looking anything up", async () => {
    for (const body of [
      { environment_ref: { slug: "development" } },
      { environment_ref: { slug: "no-such-environment" } },
      { environment_ref: { slug: "development" }, application_revision_ref: { id: second.id } },
      { environment_ref: { slug: "development" }, application_ref: { id: MISSING } },
    ]) {
      const res = await p.call("POST", "/applications/revisions/retrieve", body);
      expect(res.statusCode).toBe(400);
      expect(res.json().detail).toMatch(/key/);
    }
    const keyAlone = await p.call("POST", "/applications/revisions/retrieve", { key: "pol-app.revision" });
    expect(keyAlone.statusCode).toBe(400);
  });

  it("checks the kind refs given alongside against what the environment holds under the key", async () => {
    const same = await p.ok("POST", "/applications/revisions/retrieve", {
      environment_ref: { slug: "development" }, key: "pol-app.revision",
      application_ref: { slug: "pol-app" }, application_variant_ref: { id: app.variant_id }, application_revision_ref: { version: "1" },
    });
    expect(same.application_revision.id).toBe(app.revision_id);
    for (const clash of [{ application_revision_ref: { id: second.id } }, { application_revision_ref: { version: "2" } }, { application_ref: { slug: "ri-app" } }]) {
      const res = await p.call("POST", "/applications/revisions/retrieve", { environment_ref: { slug: "development" }, key: "pol-app.revision", ...clash });
      expect(res.statusCode).toBe(400);
    }
  });

  it("answers 404 for a missing environment or an empty key", async () => {
    expect((await p.call("POST", "/applications/revisions/retrieve", { environment_ref: { slug: "gone" }, application_ref: { slug: "pol-app" } })).statusCode).toBe(404);
    expect((await p.call("POST", "/applications/revisions/retrieve", { environment_ref: { slug: "production" }, application_ref: { slug: "pol-app" } })).statusCode).toBe(404);
  });
});

describe("6. versions count from 0", () => {
  it("seeds a simple create with an empty version 0, so the first configuration is version 1", async () => {
    const app = await simple("applications", "application", { slug: "v0-app", data: chat("first") });
    const log = await p.ok("POST", "/applications/revisions/log", { application: { application_variant_id: app.variant_id } });
    expect(log.application_revisions.map((r: any) => [r.version, r.message])).toEqual([["1", null], ["0", "Initial commit"]]);
    const v0 = await p.ok("POST", "/applications/revisions/retrieve", { application_ref: { slug: "v0-app" }, application_revision_ref: { version: "0" } });
    expect(v0.application_revision.data ?? null).toBeNull();
    expect(app.version).toBe("1");
  });

  it("numbers a variant's own commits 0, 1, 2 (a variant created without a commit has none)", async () => {
    const artifact = (await p.ok("POST", "/workflows/", { workflow: { slug: "v0-wf" } })).workflow;
    const variant = (await p.ok("POST", "/workflows/variants/", { workflow_variant: { workflow_id: artifact.id, slug: "v0-wf.main" } })).workflow_variant;
    const versions: string[] = [];
    for (const text of ["a", "b", "c"]) {
      versions.push((await p.ok("POST", "/workflows/revisions/commit", { workflow_revision_commit: { workflow_variant_id: variant.id, data: chat(text) } })).workflow_revision.version);
    }
    expect(versions).toEqual(["0", "1", "2"]);
  });

  it("renumbers revisions written before (from 1), and the versions environments keep, with migration 007", async () => {
    const empty = await emptyDatabase();
    try {
      const db = await empty.connect();
      await migrate(db);
      const [u, o, w, pr, a, v, env, envV] = Array.from({ length: 8 }, () => uuidv7());
      await db.query("INSERT INTO users (id, email) VALUES ($1, 'm@example.com')", [u]);
      await db.query("INSERT INTO organizations (id, name) VALUES ($1, 'o')", [o]);
      await db.query("INSERT INTO workspaces (id, organization_id, name) VALUES ($1, $2, 'w')", [w, o]);
      await db.query("INSERT INTO projects (id, organization_id, workspace_id, slug, name) VALUES ($1, $2, $3, 'p', 'p')", [pr, o, w]);
      await db.query("INSERT INTO artifacts (id, project_id, kind, slug) VALUES ($1, $2, 'workflow', 'a'), ($3, $2, 'environment', 'prod')", [a, pr, env]);
      await db.query("INSERT INTO variants (id, project_id, kind, artifact_id, slug) VALUES ($1, $2, 'workflow', $3, 'a.d'), ($4, $2, 'environment', $5, 'prod.d')", [v, pr, a, envV, env]);
      const revs = [uuidv7(), uuidv7(), uuidv7()];
      for (const [i, id] of revs.entries()) {
        await db.query("INSERT INTO revisions (id, project_id, kind, artifact_id, variant_id, version, slug) VALUES ($1, $2, 'workflow', $3, $4, $5, $6)", [id, pr, a, v, i + 1, `r${i}`]);
      }
      const deployed = { references: { "a.revision": { workflow: { id: a, slug: "a" }, workflow_revision: { id: revs[1], slug: "r1", version: "2" } }, broken: "x" } };
      await db.query("INSERT INTO revisions (id, project_id, kind, artifact_id, variant_id, version, slug, data) VALUES ($1, $2, 'environment', $3, $4, 1, 'e1', $5)", [uuidv7(), pr, env, envV, JSON.stringify(deployed)]);
      await db.query("DELETE FROM schema_migrations WHERE version = '007_versions_from_zero'");
      // The statements of 007 run again, as on a database that stopped at 006.
      expect(await migrate(db)).toEqual(["007_versions_from_zero"]);
      const rows = await db.query<{ id: string; version: number }>("SELECT id, version FROM revisions WHERE kind = 'workflow' ORDER BY version");
      expect(rows).toEqual(revs.map((id, version) => ({ id, version })));
      const [envRow] = await db.query<{ version: number; data: any }>("SELECT version, data FROM revisions WHERE kind = 'environment'");
      expect(envRow.version).toBe(0);
      expect(envRow.data.references["a.revision"].workflow_revision).toEqual({ id: revs[1], slug: "r1", version: "1" });
      expect(envRow.data.references.broken).toBe("x");
    } finally {
      await empty.dispose();
    }
  });
});

describe("7. fork copies the source lineage", () => {
  let app: any;
  let revisions: any[];
  beforeAll(async () => {
    app = await simple("applications", "application", { slug: "fork-app", data: chat("v1") });
    for (const text of ["v2", "v3"]) {
      await p.ok("POST", "/applications/revisions/commit", { application_revision: { application_variant_id: app.variant_id, data: chat(text), message: text } });
    }
    revisions = (await p.ok("POST", "/applications/revisions/log", { application: { application_variant_id: app.variant_id } })).application_revisions.reverse();
  });

  it("copies every revision up to the pinned one, oldest first, with the same versions and no extra commit", async () => {
    const res = await p.ok("POST", "/applications/variants/fork", {
      application_variant: { slug: "fork-app.pinned", name: "pinned" },
      application_variant_ref: { id: app.variant_id },
      application_revision_ref: { version: "2" },
    });
    expect(res.application_variant.slug).toBe("fork-app.pinned");
    const log = (await p.ok("POST", "/applications/revisions/log", { application: { application_variant_id: res.application_variant.id } })).application_revisions.reverse();
    expect(log.map((r: any) => [r.version, r.message])).toEqual(revisions.slice(0, 3).map((r) => [r.version, r.message]));
    expect(log.map((r: any) => r.id)).not.toContain(revisions[0].id);
    expect(log[2].slug).toBe(`${revisions[2].slug}_${res.application_variant.id.replace(/-/g, "")}`);
    const head = await p.ok("POST", "/applications/revisions/retrieve", { application_variant_ref: { id: res.application_variant.id } });
    expect(head.application_revision.data.parameters.prompt.messages[0].content).toBe("v2");
  });

  it("copies up to the head when no revision is pinned", async () => {
    const res = await p.ok("POST", "/applications/variants/fork", { application_variant: { slug: "fork-app.head" }, application_variant_ref: { slug: "fork-app.default" } });
    const log = (await p.ok("POST", "/applications/revisions/log", { application: { application_variant_id: res.application_variant.id } })).application_revisions;
    expect(log.map((r: any) => r.version)).toEqual(["3", "2", "1", "0"]);
  });

  it("requires the new variant and the source variant (422), and answers 400 for a source that names nothing", async () => {
    const noVariant = await p.call("POST", "/applications/variants/fork", { application_variant_ref: { id: app.variant_id } });
    expect(noVariant.statusCode).toBe(422);
    const noSource = await p.call("POST", "/applications/variants/fork", { application_variant: { slug: "x1" }, application_revision_ref: { id: revisions[1].id } });
    expect(noSource.statusCode).toBe(422);
    const unknown = await p.call("POST", "/applications/variants/fork", { application_variant: { slug: "x2" }, application_variant_ref: { id: MISSING } });
    expect(unknown.statusCode).toBe(400);
    const unknownGeneric = await p.call("POST", "/variants/fork", { revision_ref: { id: MISSING } });
    expect(unknownGeneric.statusCode).toBe(400);
  });

  it("keeps the kind-neutral /variants/fork accepting a revision ref alone", async () => {
    const res = await p.ok("POST", "/variants/fork", { revision_ref: { id: revisions[1].id }, variant: { slug: "fork-app.generic" } });
    const log = (await p.ok("POST", "/applications/revisions/log", { application: { application_variant_id: res.variant.id } })).application_revisions;
    expect(log.map((r: any) => r.version)).toEqual(["1", "0"]);
  });
});
