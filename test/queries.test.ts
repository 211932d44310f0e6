import { describe, expect, it } from "vitest";
import { serverWithProject } from "./support/server.ts";

const { server, p } = await serverWithProject();

const filtering = { operator: "and", conditions: [{ field: "trace_type", operator: "is", value: "invocation" }] };

describe("queries: saved trace filters, versioned like every kind", () => {
  it("creates a simple query, commits a new revision and reads it back by variant", async () => {
    const { query } = await p.ok("POST", "/simple/queries/", {
      query: { slug: "invocations", name: "Invocations", data: { filtering, windowing: { limit: 50 } } },
    });
    expect(query.data).toEqual({ filtering, windowing: { limit: 50 } });
    const next = { filtering: { operator: "or", conditions: [] }, trace_ids: ["a".repeat(32)] };
    const { query_revision } = await p.ok("POST", "/queries/revisions/commit", {
      query_revision: { query_id: query.id, query_variant_id: query.variant_id, data: next, message: "widen" },
    });
    expect(query_revision.data).toEqual(next);
    const retrieved = await p.ok("POST", "/queries/revisions/retrieve", { query_variant_ref: { id: query.variant_id } });
    expect(retrieved.query_revision.id).toBe(query_revision.id);
    expect(retrieved.retrieval_info.references.query.id).toBe(query.id);
    const log = await p.ok("POST", "/queries/revisions/log", { query_revisions: { query_variant_id: query.variant_id } });
    expect(log.query_revisions.map((r: any) => r.id)).toContain(query_revision.id);
  });

  it("answers an unknown simple query with count 0, as the reference does", async () => {
    const res = await p.ok("GET", "/simple/queries/00000000-0000-7000-8000-000000000000");
    expect(res).toEqual({ count: 0 });
  });

  it("refuses a key the query data does not have, and a filtering of the wrong type", async () => {
    const extra = await p.call("POST", "/simple/queries/", { query: { slug: "bad", data: { filtering, sql: "1" } } });
    expect(extra.statusCode).toBe(422);
    expect(extra.body).toContain("sql");
    const wrong = await p.call("POST", "/simple/queries/", { query: { slug: "bad2", data: { filtering: "all" } } });
    expect(wrong.statusCode).toBe(422);
    expect((await p.ok("POST", "/simple/queries/query", {})).queries.map((q: any) => q.slug)).not.toContain("bad");
  });

  it("archives out of the listing and back", async () => {
    const { query } = await p.ok("POST", "/simple/queries/", { query: { slug: "kept", data: { filtering } } });
    await p.ok("POST", `/simple/queries/${query.id}/archive`);
    expect((await p.ok("POST", "/simple/queries/query", {})).queries.map((q: any) => q.id)).not.toContain(query.id);
    await p.ok("POST", `/simple/queries/${query.id}/unarchive`);
    expect((await p.ok("POST", "/simple/queries/query", {})).queries.map((q: any) => q.id)).toContain(query.id);
  });

  it("is invisible to another project", async () => {
    const { query } = await p.ok("POST", "/simple/queries/", { query: { slug: "private", data: { filtering } } });
    const other = await server.project();
    expect(await other.ok("GET", `/simple/queries/${query.id}`)).toEqual({ count: 0 });
    const r = await other.call("POST", "/queries/revisions/retrieve", { query_variant_ref: { id: query.variant_id } });
    expect(r.json().query_revision ?? null).toBeNull();
  });
});
