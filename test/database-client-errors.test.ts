import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientErrorOf } from "../src/db/client-errors.ts";
import { startTestServer, type TestProject, type TestServer } from "./support/server.ts";

/**
 * Errors that the database raises on a client's input reach the client in the API's words: the entity,
 * the field and the value, never PostgreSQL's text (constraint, relation and type names).
 */

let server: TestServer;
let p: TestProject;

beforeAll(async () => {
  server = await startTestServer({ TESSERA_SECRET_KEY: "client-errors-secret" });
  p = await server.project();
});

afterAll(() => server.close());

const DATABASE_WORDS = /constraint|violates|relation|duplicate key|invalid input syntax|_key\b|_check\b|_fkey\b|jsonb_|ON CONFLICT|SQL/i;

async function refused(method: string, path: string, body: unknown, status: number): Promise<string> {
  const res = await p.call(method, path, body);
  expect(res.statusCode, res.body).toBe(status);
  const detail = res.json().detail;
  expect(typeof detail).toBe("string");
  expect(detail).not.toMatch(DATABASE_WORDS);
  return detail;
}

describe("a slug already taken answers 409 naming the kind and the slug", () => {
  it("applications, evaluators, environments, testsets and workflows", async () => {
    await p.ok("POST", "/applications/", { application: { slug: "taken-app" } });
    expect(await refused("POST", "/applications/", { application: { slug: "taken-app" } }, 409))
      .toBe('An application or evaluator with slug "taken-app" already exists in this project');
    // Applications and evaluators are workflows: they share one set of slugs.
    expect(await refused("POST", "/simple/evaluators/", { evaluator: { slug: "taken-app" } }, 409)).toMatch(/slug "taken-app" already exists/);
    expect(await refused("POST", "/simple/environments/", { environment: { slug: "production", data: { references: {} } } }, 409))
      .toBe('An environment with slug "production" already exists in this project');
    await p.ok("POST", "/simple/testsets/", { testset: { slug: "taken-set", data: { testcases: [] } } });
    expect(await refused("POST", "/simple/testsets/", { testset: { slug: "taken-set", data: { testcases: [] } } }, 409))
      .toBe('A testset with slug "taken-set" already exists in this project');
  });

  it("variants and revisions", async () => {
    const app = (await p.ok("POST", "/simple/applications/", { application: { slug: "with-variants" } })).application;
    const variant = { application_variant: { application_id: app.id, slug: "taken-variant" } };
    await p.ok("POST", "/applications/variants/", variant);
    expect(await refused("POST", "/applications/variants/", variant, 409))
      .toBe('An application or evaluator variant with slug "taken-variant" already exists in this project');

    const commit = { application_revision_commit: { application_variant_id: app.variant_id, slug: "taken-revision" } };
    await p.ok("POST", "/applications/revisions/commit", commit);
    expect(await refused("POST", "/applications/revisions/commit", commit, 409))
      .toBe('An application or evaluator revision with slug "taken-revision" already exists in this project');
    // Nothing of the refused commit was written.
    const log = await p.ok("POST", "/applications/revisions/log", { application: { application_variant_id: app.variant_id } });
    expect(log.application_revisions.filter((r: any) => r.slug === "taken-revision")).toHaveLength(1);
  });

  it("provider secrets", async () => {
    const secret = { secret: { provider: "openai", slug: "taken-secret", api_key: "sk-1" } };
    await p.ok("POST", "/secrets/", secret);
    expect(await refused("POST", "/secrets/", secret, 409)).toBe('A secret with slug "taken-secret" already exists in this project');
  });
});

describe("evaluation entities", () => {
  it("a batch naming one result or metric slot twice is a 422, not a database error", async () => {
    const run = (await p.ok("POST", "/evaluations/runs/", { runs: [{ name: "twice" }] })).runs[0];
    const [scenario] = (await p.ok("POST", "/evaluations/scenarios/", { scenarios: [{ run_id: run.id }] })).scenarios;
    const result = { run_id: run.id, scenario_id: scenario.id, step_key: "answer", status: "success" };
    expect(await refused("POST", "/evaluations/results/", { results: [result, result] }, 422)).toMatch(/same item twice/);
    const metric = { run_id: run.id, data: {} };
    expect(await refused("POST", "/evaluations/metrics/", { metrics: [metric, metric] }, 422)).toMatch(/same item twice/);
    expect((await p.ok("POST", "/evaluations/results/query", { result: { run_id: run.id } })).count).toBe(0);
  });

  it("a timestamp or interval the database cannot hold is a 422 naming the value", async () => {
    const run = (await p.ok("POST", "/evaluations/runs/", { runs: [{ name: "odd values" }] })).runs[0];
    expect(await refused("POST", "/evaluations/scenarios/", { scenarios: [{ run_id: run.id, timestamp: "0000-01-01T00:00:00Z" }] }, 422))
      .toMatch(/"0000-01-01T00:00:00Z": not a valid date and time/);
    expect(await refused("POST", "/evaluations/scenarios/", { scenarios: [{ run_id: run.id, interval: 2 ** 40 }] }, 422))
      .toMatch(/number is out of range/);
  });

  it("a metric naming a scenario that does not exist is a 404 naming the field and the id", async () => {
    const run = (await p.ok("POST", "/evaluations/runs/", { runs: [{ name: "no such scenario" }] })).runs[0];
    const missing = "0190a000-0000-7000-8000-00000000abcd";
    expect(await refused("POST", "/evaluations/metrics/", { metrics: [{ run_id: run.id, scenario_id: missing, data: {} }] }, 404))
      .toBe(`Not found: scenario_id ${missing} names an evaluation scenario that does not exist`);
  });

  it("a query filter of the wrong type is a 422 naming the filter", async () => {
    const cases: [string, object, string][] = [
      ["/evaluations/results/query", { result: { repeat_idx: "x" } }, 'Filter repeat_idx must be an integer (32-bit); got "x"'],
      ["/evaluations/results/query", { result: { run_ids: ["nope"] } }, 'Filter run_ids must be a list, each item a UUID; got ["nope"]'],
      ["/evaluations/runs/query", { run: { ids: "0190a000-0000-7000-8000-00000000abcd" } }, "Filter ids must be a list, each item a UUID"],
      ["/evaluations/scenarios/query", { scenario: { interval: 99999999999 } }, "Filter interval must be an integer (32-bit); got 99999999999"],
      ["/evaluations/metrics/query", { metrics: { timestamp: "garbage" } }, 'Filter timestamp must be an ISO 8601 date-time; got "garbage"'],
      ["/evaluations/queues/query", { queue: { run_id: 7 } }, "Filter run_id must be a UUID; got 7"],
    ];
    for (const [path, body, detail] of cases) expect(await refused("POST", path, body, 422), path).toContain(detail);
    // A date-time the database cannot hold still names its value.
    expect(await refused("POST", "/evaluations/metrics/query", { metrics: { timestamps: ["0000-01-01T00:00:00Z"] } }, 422))
      .toBe('Invalid value "0000-01-01T00:00:00Z": not a valid date and time, or out of range');
  });
});

describe("every database error a client can cause, in the API's words", () => {
  // Real errors from the database under test (PGlite or PostgreSQL), on tables made for the purpose.
  async function errorOf(sql: string): Promise<unknown> {
    try {
      await server.db.transaction(async (tx) => {
        await tx.query(`CREATE TEMP TABLE parent (id uuid PRIMARY KEY) ON COMMIT DROP`);
        await tx.query(`CREATE TEMP TABLE evaluation_queues (id uuid PRIMARY KEY, project_id uuid, slug text NOT NULL,
          status text CHECK (status IN ('a', 'b')), parent_id uuid REFERENCES parent (id), UNIQUE (project_id, slug)) ON COMMIT DROP`);
        await tx.query(`INSERT INTO parent VALUES ('0190a000-0000-7000-8000-000000000001')`);
        await tx.query(`INSERT INTO evaluation_queues (id, project_id, slug, parent_id)
          VALUES ('0190a000-0000-7000-8000-000000000002', '0190a000-0000-7000-8000-000000000003', 'first, and more', '0190a000-0000-7000-8000-000000000001')`);
        await tx.query(sql);
      });
    } catch (error) {
      return error;
    }
    throw new Error(`no error from ${sql}`);
  }
  const row = (id: string, slug: string, extra = "") =>
    `INSERT INTO evaluation_queues (id, project_id, slug${extra ? ", status" : ""}) VALUES ('${id}', '0190a000-0000-7000-8000-000000000003', '${slug}'${extra})`;

  it.each([
    ["unique", row("0190a000-0000-7000-8000-000000000009", "first, and more"), 409, 'Conflict: an evaluation queue with slug "first, and more" already exists'],
    ["foreign key", "INSERT INTO evaluation_queues (id, slug, parent_id) VALUES (gen_random_uuid(), 'x', '0190a000-0000-7000-8000-00000000000f')", 404,
      "Not found: parent_id 0190a000-0000-7000-8000-00000000000f names an entity that does not exist"],
    ["still referenced", "DELETE FROM parent", 409, /^Conflict: 0190a000-0000-7000-8000-000000000001 is still used by an evaluation queue$/],
    ["not null", "INSERT INTO evaluation_queues (id) VALUES (gen_random_uuid())", 422, "Invalid value: slug is required"],
    ["check", row("0190a000-0000-7000-8000-000000000008", "y", ", 'c'"), 422, "Invalid value: status is not one of the values allowed"],
    ["uuid", "SELECT 'nope'::uuid", 422, 'Invalid value "nope": expected a UUID'],
    ["integer", "SELECT 'many'::integer", 422, 'Invalid value "many": expected a value of type integer'],
    ["json", "SELECT '{x'::jsonb", 422, /JSON value cannot be stored/],
    ["NUL in jsonb", `SELECT '"a\\u0000"'::jsonb`, 422, /\\u0000 inside JSON/],
    ["date", "SELECT '0000-01-01'::timestamptz", 422, 'Invalid value "0000-01-01": not a valid date and time, or out of range'],
    ["number", "SELECT 2147483647::integer + 1", 422, "Invalid value: a number is out of range"],
    ["division", "SELECT 1 / 0", 422, /^Invalid value: a value in the request cannot be stored \(data exception 22012\)$/],
  ] as const)("%s", async (_name, sql, status, detail) => {
    const answer = clientErrorOf(await errorOf(sql));
    expect(answer?.[0]).toBe(status);
    expect(answer?.[1]).toMatch(typeof detail === "string" ? new RegExp(`^${detail.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`) : detail);
    expect(answer?.[1]).not.toMatch(DATABASE_WORDS);
  });

  it("leaves errors that are not the client's alone", async () => {
    expect(clientErrorOf(await errorOf("SELECT * FROM no_such_table"))).toBeUndefined();
    expect(clientErrorOf(new Error("plain"))).toBeUndefined();
  });
});
