import { describe, expect, it } from "vitest";
import { compileEverySerializer } from "../../src/http/serialization.ts";
import { compileEveryValidator } from "../../src/http/validation.ts";
import { serverWithProject } from "../support/server.ts";

/** Validators and serializers are compiled at a route's first use; every route's schemas must still compile. */
const { p } = await serverWithProject();

describe("route schemas", () => {
  it("compiles a route's validator at its first request, and validates from the first request on", async () => {
    const refused = await p.call("POST", "/simple/testsets/", { testset: { name: 42 } });
    expect(refused.statusCode).toBe(422);
    expect(JSON.stringify(refused.json().detail)).toContain("name");
    const created = await p.call("POST", "/simple/testsets/", { testset: { name: "first", unknown_field: 1 } });
    expect(created.statusCode).toBe(200);
    expect(created.headers["x-tessera-ignored-fields"]).toBe("body.testset.unknown_field");
  });

  it("serializes an answer by its route's response schema from the first answer on", async () => {
    const created = await p.ok("POST", "/simple/testsets/", { testset: { name: "answered" } });
    const read = await p.call("GET", `/simple/testsets/${created.testset.id}`);
    expect(read.statusCode).toBe(200);
    expect(read.json().testset).toMatchObject({ id: created.testset.id, name: "answered" });
    expect(read.json().count).toBe(1);
  });

  it("compiles every route's schemas without an error", () => {
    expect(compileEveryValidator()).toBeGreaterThan(100);
    expect(compileEveryValidator()).toBe(0);
    expect(compileEverySerializer()).toBeGreaterThan(100);
    expect(compileEverySerializer()).toBe(0);
  });
});
