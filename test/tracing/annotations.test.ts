import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestProject, type TestServer } from "../support/server.ts";
import { randomHex } from "./otlp-support.ts";

let server: TestServer;
let project: TestProject;
let other: TestProject;

beforeAll(async () => {
  server = await startTestServer();
  project = await server.project();
  other = await server.project();
});
afterAll(async () => server.close());

type Json = Record<string, any>;
const invocation = () => ({ trace_id: randomHex(16), span_id: randomHex(8) });
const slug = () => `judge-${randomHex(6)}`;

describe("/simple/traces/", () => {
  it("creates, fetches, edits and deletes a trace linked to the invocation it scores", async () => {
    const evaluator = slug();
    const links = { invocation: invocation() };
    const created = await project.ok<Json>("POST", "/simple/traces/", {
      trace: {
        origin: "human", kind: "eval", channel: "web", data: { outputs: { score: 0.5, label: "fine" } },
        tags: { team: "qa" }, meta: { note: "first" }, references: { evaluator: { slug: evaluator } }, links,
      },
    }, 202);
    expect(created.count).toBe(1);
    const trace = created.trace;
    expect(trace).toMatchObject({ origin: "human", kind: "eval", channel: "web", links, tags: { team: "qa" } });
    expect(trace.trace_id).toMatch(/^[0-9a-f]{32}$/);
    // The evaluator named by slug did not exist: it was created, and the references carry its ids.
    const found = await project.ok<Json>("POST", "/simple/evaluators/query", { evaluator: { slug: evaluator } });
    expect(found.count).toBe(1);
    expect(trace.references.evaluator).toEqual({ id: found.evaluators[0].id, slug: evaluator });
    expect(trace.references.evaluator_revision.version).toBe("1");

    const fetched = await project.ok<Json>("GET", `/simple/traces/${trace.trace_id}`);
    expect(fetched.trace).toEqual(trace);
    // Stored as an annotation span in the spans table, readable through the tracing router.
    const spans = await project.ok<Json>("GET", `/tracing/traces/${trace.trace_id}`);
    const root = spans.traces[trace.trace_id].spans[evaluator];
    expect(root.attributes.ag.type.trace).toBe("annotation");
    expect(root.attributes.ag.data.outputs).toEqual({ score: 0.5, label: "fine" });

    const edited = await project.ok<Json>("PATCH", `/simple/traces/${trace.trace_id}`, {
      trace: { data: { outputs: { score: 1 } }, tags: { team: "ops" } },
    });
    expect(edited.trace).toMatchObject({
      trace_id: trace.trace_id, span_id: trace.span_id, origin: "human", kind: "eval", channel: "web",
      data: { outputs: { score: 1 } }, tags: { team: "ops" }, links, references: trace.references,
    });
    expect(edited.trace.meta).toBeUndefined();

    const deleted = await project.ok<Json>("DELETE", `/simple/traces/${trace.trace_id}`);
    expect(deleted).toEqual({ count: 1, link: { trace_id: trace.trace_id, span_id: trace.span_id } });
    expect(await project.ok("GET", `/simple/traces/${trace.trace_id}`)).toEqual({ count: 0 });
    expect(await project.ok("DELETE", `/simple/traces/${trace.trace_id}`)).toEqual({ count: 0 });
    expect(await project.ok("PATCH", `/simple/traces/${trace.trace_id}`, { trace: { data: { a: 1 } } }))
      .toEqual({ count: 0 });
  });

  it("retires cached resolutions when it creates an evaluator, so its slug resolves at once", async () => {
    const evaluator = slug();
    const retrieve = () =>
      project.call("POST", "/evaluators/revisions/retrieve", { evaluator_ref: { slug: evaluator } });
    expect((await retrieve()).json()).toEqual({ count: 0, evaluator_revision: null });
    await project.ok("POST", "/simple/traces/", {
      trace: {
        data: { outputs: { ok: true } }, references: { evaluator: { slug: evaluator } }, links: { i: invocation() },
      },
    }, 202);
    const after = await retrieve();
    expect(after.statusCode, after.body).toBe(200);
    expect(after.json().evaluator_revision.data.uri).toBe("agenta:custom:feedback:v0");
  });

  it("creates one evaluator when several annotations name a new slug at once", async () => {
    const evaluator = slug();
    const created = await Promise.all(Array.from({ length: 6 }, () => project.ok<Json>("POST", "/annotations/", {
      annotation: {
        data: { outputs: { s: 1 } }, references: { evaluator: { slug: evaluator } }, links: [invocation()],
      },
    })));
    const found = await project.ok<Json>("POST", "/simple/evaluators/query", { evaluator: { slug: evaluator } });
    expect(found.count).toBe(1);
    for (const { annotation } of created) expect(annotation.references.evaluator.id).toBe(found.evaluators[0].id);
  });

  it("creates no evaluator for a trace without links, and keeps links that name no span out of storage", async () => {
    const evaluator = slug();
    const created = await project.ok<Json>("POST", "/simple/traces/", {
      trace: { data: { outputs: { score: 1 } }, references: { evaluator: { slug: evaluator } }, links: {} },
    }, 202);
    expect(created.trace.references.evaluator).toEqual({ slug: evaluator });
    expect(created.trace.origin).toBe("custom");
    expect((await project.ok<Json>("POST", "/simple/evaluators/query", { evaluator: { slug: evaluator } })).count)
      .toBe(0);
    const testcase = await project.ok<Json>("POST", "/simple/traces/", {
      trace: { data: { outputs: { score: 1 } }, links: { testcase: { id: crypto.randomUUID() } } },
    }, 202);
    expect(testcase.trace.links).toEqual({});
  });

  it("queries by origin, kind, channel, tags, meta, references, links and trace ids", async () => {
    const mine = await server.project();
    const target = invocation();
    const evaluator = slug();
    const make = async (trace: Json) => (await mine.ok<Json>("POST", "/simple/traces/", { trace }, 202)).trace;
    const a = await make({
      origin: "custom", kind: "adhoc", channel: "api", data: { outputs: { v: 1 } }, tags: { t: "x" },
      meta: { m: "1" }, references: { evaluator: { slug: evaluator } }, links: { invocation: target },
    });
    const b = await make({
      origin: "human", kind: "eval", channel: "web", data: { outputs: { v: 2 } }, tags: { t: "y" },
      references: { evaluator: { slug: evaluator } }, links: { invocation: invocation() },
    });
    const c = await make({
      origin: "auto", kind: "eval", channel: "sdk", data: { outputs: { v: 3 } }, tags: { t: "x" },
      links: [target],
    });
    const ids = async (body: Json) =>
      (await mine.ok<Json>("POST", "/simple/traces/query", body)).traces.map((t: Json) => t.trace_id).sort();
    const sorted = (...traces: Json[]) => traces.map((t) => t.trace_id).sort();
    expect(await ids({})).toEqual(sorted(a, b, c));
    expect(await ids({ trace: { origin: "auto" } })).toEqual(sorted(c));
    expect(await ids({ trace: { origin: "human" } })).toEqual(sorted(b));
    expect(await ids({ trace: { kind: "adhoc" } })).toEqual(sorted(a));
    expect(await ids({ trace: { channel: "api" } })).toEqual(sorted(a));
    expect(await ids({ trace: { tags: { t: "x" } } })).toEqual(sorted(a, c));
    expect(await ids({ trace: { meta: { m: "1" } } })).toEqual(sorted(a));
    expect(await ids({ trace: { references: { evaluator: { slug: evaluator } } } })).toEqual(sorted(a, b));
    expect(await ids({ trace: { links: { invocation: target } } })).toEqual(sorted(a, c));
    expect(await ids({ trace: { links: [target, b.links.invocation] } })).toEqual(sorted(a, b, c));
    expect(await ids({ links: [{ trace_id: b.trace_id, span_id: b.span_id }] })).toEqual(sorted(b));
    // Another project sees none of them.
    expect(await other.ok("POST", "/simple/traces/query", { trace: { tags: { t: "x" } } }))
      .toEqual({ count: 0, traces: [] });
    expect(await other.ok("GET", `/simple/traces/${a.trace_id}`)).toEqual({ count: 0 });
    expect(await other.ok("DELETE", `/simple/traces/${a.trace_id}`)).toEqual({ count: 0 });
    expect((await mine.ok<Json>("GET", `/simple/traces/${a.trace_id}`)).count).toBe(1);
  });

  it("answers bad input with a 4xx that names what is wrong, and stores nothing", async () => {
    const bad = async (body: unknown, status: number, detail: RegExp) => {
      const res = await project.call("POST", "/simple/traces/", body);
      expect(res.statusCode, res.body).toBe(status);
      expect(JSON.stringify(res.json().detail)).toMatch(detail);
    };
    await bad({ trace: { references: {} } }, 422, /data/);
    await bad({ trace: { data: {} } }, 422, /data/);
    await bad({ trace: { data: { a: 1 }, origin: "robot" } }, 422, /origin/);
    await bad({ trace: { data: { a: 1 }, links: { invocation: { trace_id: "nope", span_id: "25a8e0b9bbf37d30" } } } },
      400, /links\.invocation\.trace_id is not a trace id/);
    const evaluator = slug();
    await bad({
      trace: {
        data: { a: 1 }, references: { evaluator: { slug: evaluator, id: "x" } }, links: { i: invocation() },
      },
    }, 400, /references\.evaluator\.id/);
    expect((await project.ok<Json>("POST", "/simple/evaluators/query", { evaluator: { slug: evaluator } })).count)
      .toBe(0);
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`l${i}`, invocation()]));
    await bad({ trace: { data: { a: 1 }, links: many } }, 422, /links/);
    const res = await project.call("GET", "/simple/traces/not-an-id");
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(/trace_id/);
  });
});

describe("nasty input", () => {
  it("never answers a 500, and answers each 4xx with a detail", async () => {
    const link = invocation();
    const bodies: [string, string][] = [
      ["NUL in tags, meta and a slug", JSON.stringify({ trace: {
        data: { o: "a\u0000" }, tags: { t: "a\u0000b" }, meta: { m: "\u0000" },
        references: { evaluator: { slug: "n\u0000ul" } }, links: { i: link },
      } })],
      ["lone surrogate", `{"trace":{"data":{"o":"\\ud800"},"links":{"i":${JSON.stringify(link)}}}}`],
      ["huge number", `{"trace":{"data":{"o":1e400,"p":123456789012345678901234567890}}}`],
      ["tags that are no labels",
        JSON.stringify({ trace: { data: { o: 1 }, tags: { t: { deep: [1, { x: null }] } } } })],
      ["a link that is a string", JSON.stringify({ trace: { data: { o: 1 }, links: { i: "abc" } } })],
      ["a reference that is a number", JSON.stringify({ trace: { data: { o: 1 }, references: { evaluator: 3 } } })],
      ["a dotted tag key", JSON.stringify({ trace: { data: { o: 1 }, tags: { "a.b": "c", "": "e" } } })],
      ["__proto__ in data", `{"trace":{"data":{"__proto__":{"x":1}}}}`],
    ];
    for (const [name, payload] of bodies) {
      for (const url of ["/api/simple/traces/", "/api/annotations/"]) {
        const body = url.includes("annotations") ? payload.replace('{"trace"', '{"annotation"') : payload;
        const res = await server.app.inject({
          method: "POST", url, payload: body,
          headers: { authorization: `ApiKey ${project.key}`, "content-type": "application/json" },
        });
        expect(res.statusCode, `${name} ${url}: ${res.body.slice(0, 300)}`).toBeLessThan(500);
        if (res.statusCode >= 400) expect(res.json(), name).toHaveProperty("detail");
      }
    }
    const query = await project.call("POST", "/simple/traces/query", {
      trace: { links: { i: { trace_id: "zz" } }, references: { e: { id: "not-a-uuid" } }, tags: { "": null } },
    });
    expect(query.statusCode, query.body).toBeLessThan(500);
  });
});

describe("/annotations/", () => {
  it("creates an annotation for an evaluator given by slug, checks later outputs against its schema", async () => {
    const evaluator = slug();
    const links = { invocation: invocation() };
    const created = await project.ok<Json>("POST", "/annotations/", {
      annotation: {
        origin: "human", data: { outputs: { score: 3, comment: "ok" } },
        references: { evaluator: { slug: evaluator } }, links,
      },
    });
    const annotation = created.annotation;
    expect(annotation).toMatchObject({ origin: "human", kind: "adhoc", channel: "api", links });
    const found = await project.ok<Json>("POST", "/simple/evaluators/query", { evaluator: { slug: evaluator } });
    expect(found.evaluators[0].data).toMatchObject({
      uri: "agenta:custom:feedback:v0",
      schemas: { outputs: { type: "object", properties: { score: { type: "integer" }, comment: { type: "string" } } } },
    });
    expect(annotation.references.evaluator.id).toBe(found.evaluators[0].id);

    // A second annotation for the same evaluator must fit the schema the first one gave it.
    const wrong = await project.call("POST", "/annotations/", {
      annotation: { data: { outputs: { score: "high" } }, references: { evaluator: { slug: evaluator } }, links },
    });
    expect(wrong.statusCode, wrong.body).toBe(422);
    expect(wrong.json().detail.map((issue: Json) => issue.loc)).toContainEqual(
      ["body", "annotation", "data", "outputs", "score"],
    );
    const missing = await project.call("POST", "/annotations/", { annotation: { data: { outputs: { a: 1 } }, links } });
    expect(missing.statusCode).toBe(422);
    expect(JSON.stringify(missing.json().detail)).toMatch(/evaluator/);

    expect((await project.ok<Json>("GET", `/annotations/${annotation.trace_id}`)).annotation).toEqual(annotation);
    const edited = await project.ok<Json>("PUT", `/annotations/${annotation.trace_id}`, {
      annotation: { data: { outputs: { score: 5, comment: "better" } } },
    });
    expect(edited.annotation).toMatchObject({ data: { outputs: { score: 5 } }, links, origin: "human" });
    const badEdit = await project.call("PATCH", `/annotations/${annotation.trace_id}`, {
      annotation: { data: { outputs: { score: 1.5, comment: "x" } } },
    });
    expect(badEdit.statusCode).toBe(422);

    const queried = await project.ok<Json>("POST", "/annotations/query", {
      annotation: { references: { evaluator: { slug: evaluator } } },
    });
    expect(queried.annotations.map((a: Json) => a.trace_id)).toEqual([annotation.trace_id]);
    const byLink = await project.ok<Json>("POST", "/annotations/query", {
      annotation_links: [{ trace_id: annotation.trace_id, span_id: annotation.span_id }],
    });
    expect(byLink.count).toBe(1);
    expect((await other.ok<Json>("POST", "/annotations/query", {})).count).toBe(0);

    expect(await project.ok("DELETE", `/annotations/${annotation.trace_id}`)).toEqual({
      count: 1, annotation_link: { trace_id: annotation.trace_id, span_id: annotation.span_id },
    });
    expect(await project.ok("GET", `/annotations/${annotation.trace_id}`)).toEqual({ count: 0 });
  });

  it("stores every simple trace as an annotation, so annotation queries find those without links too", async () => {
    const mine = await server.project();
    await mine.ok("POST", "/simple/traces/", { trace: { data: { outputs: { v: 1 } } } }, 202);
    expect((await mine.ok<Json>("POST", "/simple/traces/query", {})).count).toBe(1);
    expect((await mine.ok<Json>("POST", "/annotations/query", {})).count).toBe(1);
    // An invocation (a span without links) is a simple trace, never an annotation.
    await mine.ok("POST", "/tracing/spans/ingest", {
      spans: [{
        ...invocation(), span_name: "call", start_time: new Date().toISOString(),
        attributes: { ag: { data: { inputs: { q: 1 }, outputs: "a" } } },
      }],
    }, 202);
    expect((await mine.ok<Json>("POST", "/simple/traces/query", {})).count).toBe(2);
    expect((await mine.ok<Json>("POST", "/annotations/query", {})).count).toBe(1);
  });
});
