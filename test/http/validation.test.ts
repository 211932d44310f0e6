import { describe, expect, it } from "vitest";
import { compileEveryValidator } from "../../src/http/validation.ts";
import { serverWithProject } from "../support/server.ts";

/** Validators are compiled at a route's first request; every route's schemas must still compile. */
const { p } = await serverWithProject();

describe("request validation", () => {
  it("compiles a route's validator at its first request, and validates from the first request on", async () => {
    const refused = await p.call("POST", "/simple/testsets/", { testset: { name: 42 } });
    expect(refused.statusCode).toBe(422);
    expect(JSON.stringify(refused.json().detail)).toContain("name");
    const created = await p.call("POST", "/simple/testsets/", { testset: { name: "first", unknown_field: 1 } });
    expect(created.statusCode).toBe(200);
    expect(created.headers["x-tessera-ignored-fields"]).toBe("body.testset.unknown_field");
  });

  it("compiles every route's schemas without an error", () => {
    expect(compileEveryValidator()).toBeGreaterThan(100);
    expect(compileEveryValidator()).toBe(0);
  });
});
