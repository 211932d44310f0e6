import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer } from "node:http";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { AddressInfo } from "node:net";
import { checkFetchesAgainstOpenApi } from "./support/fetch-conformance.ts";
import { OpenApiConformance } from "./support/openapi-conformance.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

const ERRORS = ["400", "401", "403", "404", "409", "413", "415", "422", "429", "503"];

describe("the OpenAPI document", () => {
  let server: TestServer;
  let doc: any;
  beforeAll(async () => {
    server = await startTestServer();
    doc = (await server.app.inject({ method: "GET", url: "/api/openapi.json" })).json();
  });
  afterAll(() => server.close());

  const operations = () => Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    Object.entries<any>(item).map(([method, op]) => ({ where: `${method.toUpperCase()} ${path}`, op })));

  it("documents a success answer with a body schema for every operation (204 and 304 carry none)", () => {
    const missing = operations().filter(({ op }) => {
      const success = Object.entries<any>(op.responses).filter(([status]) => /^2/.test(status));
      return success.length === 0 || success.some(([status, r]) => status !== "204" && !r.content);
    }).map((o) => o.where);
    expect(missing).toEqual([]);
  });

  it("documents every error answer as {detail} on every operation", () => {
    expect(doc.components.schemas.ErrorResponse.properties.detail.anyOf).toHaveLength(3);
    const missing = operations().flatMap(({ where, op }) => ERRORS.filter((s) => !op.responses[s]).map((s) => `${where} ${s}`));
    expect(missing).toEqual([]);
    const detail = doc.paths["/api/secrets/{secret_id}"].get.responses["404"];
    expect(doc.components.responses[detail.$ref.split("/").pop()].content["application/json"].schema)
      .toEqual({ $ref: "#/components/schemas/ErrorResponse" });
  });

  it("documents the three upload routes' multipart bodies, and the multipart parser still reads them", async () => {
    for (const path of ["/api/simple/testsets/upload", "/api/simple/testsets/{id}/upload", "/api/testsets/revisions/{id}/upload"]) {
      const body = doc.paths[path].post.requestBody.content["multipart/form-data"].schema;
      expect(body.required).toEqual(["file"]);
      expect(body.properties.file).toMatchObject({ type: "string", format: "binary" });
    }
    const p = await server.project();
    const boundary = "----tessera";
    const payload = [
      `--${boundary}`, 'Content-Disposition: form-data; name="testset_name"', "", "Cities",
      `--${boundary}`, 'Content-Disposition: form-data; name="file"; filename="cities.csv"', "Content-Type: text/csv", "", "city\nLima\n",
      `--${boundary}--`, "",
    ].join("\r\n");
    const res = await p.call("POST", "/simple/testsets/upload", payload, { "content-type": `multipart/form-data; boundary=${boundary}` });
    expect(res.statusCode).toBe(200);
    expect(res.json().testset.name).toBe("Cities");
  });

  it("lists each record's fields: revisions, secrets, the invoke envelope", () => {
    const revision = doc.paths["/api/testsets/revisions/commit"].post.responses["200"].content["application/json"].schema;
    expect(Object.keys(revision.properties.testset_revision.anyOf[0].properties)).toEqual(
      expect.arrayContaining(["id", "version", "variant_id", "artifact_id", "message", "data"]));
    const secrets = doc.paths["/api/secrets/"].get.responses["200"].content["application/json"].schema;
    expect(secrets.type).toBe("array");
    expect(Object.keys(secrets.items.properties)).toEqual(["id", "slug", "kind", "data", "header", "lifecycle"]);
    const invoke = doc.paths["/services/invoke"].post.responses;
    expect(Object.keys(invoke["200"].content["application/json"].schema.properties)).toContain("trace_id");
    expect(invoke["424"].content["application/json"].schema.anyOf).toHaveLength(2);
  });

  it("is a valid OpenAPI 3.2 document", async () => {
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? [], JSON.stringify(result.errors ?? []).slice(0, 2000)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.2");
  });

  it("describes each streamed event with itemSchema, as a schema-driven client parses it: {event, data, id?, retry?}", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema({ $id: "openapi", components: doc.components } as never);
    const item = doc.paths["/services/invoke"].post.responses["200"].content["text/event-stream"].itemSchema;
    const rebased = JSON.parse(JSON.stringify(item).replaceAll('"$ref":"#/', '"$ref":"openapi#/'));
    const valid = ajv.compile(rebased);
    const done = { event: "done", data: '{"trace_id":"t","span_id":"s","outputs":"Paris"}' };
    const error = { event: "error", data: '{"version":"2025.07.14","status":{"code":502,"type":"x","message":"m"}}' };
    for (const event of [{ event: "delta", data: '{"text":"Par"}' }, done, error, { ...done, id: "1", retry: 1000 }]) {
      expect(valid(event), `${JSON.stringify(event)}: ${JSON.stringify(valid.errors)}`).toBe(true);
    }
    for (const event of [{ event: "progress", data: "{}" }, { data: '{"text":"x"}' }, { event: "delta" }, { event: "done", data: 1 }]) {
      expect(valid(event), JSON.stringify(event)).toBe(false);
    }
  });

  it("documents the streamed invoke: text/event-stream with its events and each one's data", async () => {
    for (const path of ["/services/invoke", "/services/{key}/{version}/invoke", "/services/revisions/{revision_id}/invoke"]) {
      const stream = doc.paths[path].post.responses["200"].content["text/event-stream"];
      expect(stream.itemSchema.properties.event.enum, path).toEqual(["delta", "done", "error"]);
      expect(stream.itemSchema.oneOf.map((b: any) => b.properties.event.enum[0]), path).toEqual(["delta", "done", "error"]);
      expect(stream.schema.description).toMatch(/`delta` `\{text\}`.*`done` `\{trace_id, span_id, outputs, usage\?\}`.*`error`/);
    }
    const check = new OpenApiConformance(doc);
    const stream = (body: string) => ({ statusCode: 200, body, headers: { "content-type": "text/event-stream" } }) as never;
    const done = 'event: done\ndata: {"trace_id":"t","span_id":"s","outputs":"Paris"}\n\n';
    expect(check.problem("POST", "/services/invoke", stream(`event: delta\ndata: {"text":"Par"}\n\n${done}`))).toBeNull();
    expect(check.problem("POST", "/services/invoke", stream('event: delta\ndata: {"txt":"Par"}\n\n'))).toMatch(/event "delta" does not match[\s\S]*'text'/);
    expect(check.problem("POST", "/services/invoke", stream('event: progress\ndata: {}\n\n'))).toMatch(/event "progress" is not documented/);
    const failed = 'event: error\ndata: {"version":"2025.07.14","status":{"code":502,"type":"x","message":"m"},"trace_id":"t","span_id":"s"}\n\n';
    expect(check.problem("POST", "/services/invoke", stream(failed))).toBeNull();
  });

  it("lists the fields of every evaluation entity, and the drift check holds answers to them", async () => {
    const answerOf = (method: string, path: string) => doc.paths[path][method].responses["200"].content["application/json"].schema;
    const fields = {
      "/api/evaluations/runs/": ["runs", ["id", "version", "name", "status", "data", "created_at", "deleted_at"]],
      "/api/evaluations/scenarios/": ["scenarios", ["id", "status", "interval", "timestamp", "run_id"]],
      "/api/evaluations/results/": ["results", ["id", "hash_id", "trace_id", "testcase_id", "error", "repeat_idx", "step_key", "scenario_id", "run_id"]],
      "/api/evaluations/metrics/": ["metrics", ["id", "status", "data", "interval", "timestamp", "scenario_id", "run_id"]],
      "/api/evaluations/queues/": ["queues", ["id", "name", "flags", "status", "data", "run_id"]],
    } as const;
    for (const [path, [key, names]] of Object.entries(fields)) {
      const record = answerOf("post", path).properties[key].items;
      expect(record.required, path).toEqual(expect.arrayContaining([...names]));
    }
    const evaluation = answerOf("get", "/api/simple/evaluations/{evaluation_id}").properties.evaluation.anyOf[0];
    expect(Object.keys(evaluation.properties.data.properties)).toEqual(
      ["status", "query_steps", "testset_steps", "application_steps", "evaluator_steps", "repeats", "concurrency"]);
    const queue = answerOf("get", "/api/simple/queues/{queue_id}").properties.queue.anyOf[0];
    expect(Object.keys(queue.properties.data.properties)).toEqual(["kind", "queries", "testsets", "assignments", "repeats", "settings"]);

    const p = await server.project();
    const run = (await p.ok("POST", "/evaluations/runs/", { runs: [{ name: "checked" }] })).runs[0];
    const check = new OpenApiConformance(doc);
    const answer = (body: unknown) => ({ statusCode: 200, body: JSON.stringify(body), headers: { "content-type": "application/json" } }) as never;
    expect(check.problem("GET", `/api/evaluations/runs/${run.id}`, answer({ count: 1, run }))).toBeNull();
    expect(check.problem("GET", `/api/evaluations/runs/${run.id}`, answer({ count: 1, run: { ...run, status: "done" } })))
      .toMatch(/\/run\/status must be equal to one of the allowed values/);
    const { created_at: _, ...undated } = run;
    expect(check.problem("GET", `/api/evaluations/runs/${run.id}`, answer({ count: 1, run: undated }))).toMatch(/required property 'created_at'/);
  });
});

describe("the drift check of the test helper", () => {
  const doc = {
    paths: {
      "/api/things/{id}": {
        get: {
          responses: {
            200: { content: { "application/json": { schema: { type: "object", required: ["count"], properties: { count: { type: "integer" } } } } } },
            404: { $ref: "#/components/responses/Error404" },
          },
        },
      },
    },
    components: {
      responses: { Error404: { content: { "application/json": { schema: { $ref: "#/components/schemas/E" } } } } },
      schemas: { E: { type: "object", required: ["detail"], properties: { detail: { type: "string" } } } },
    },
  };
  const answer = (statusCode: number, body: unknown) =>
    ({ statusCode, body: JSON.stringify(body), headers: { "content-type": "application/json" } }) as never;
  const check = new OpenApiConformance(doc);

  it("passes answers that match their route, method and status", () => {
    expect(check.problem("GET", "/api/things/7?x=1", answer(200, { count: 1 }))).toBeNull();
    expect(check.problem("GET", "/api/things/7", answer(404, { detail: "No thing 7" }))).toBeNull();
  });

  it("names a body that does not match, and a status the document does not list", () => {
    expect(check.problem("GET", "/api/things/7", answer(200, { count: "one" }))).toMatch(/GET \/api\/things\/\{id\} → 200: the body does not match[\s\S]*\/count must be integer/);
    expect(check.problem("GET", "/api/things/7", answer(404, { message: "gone" }))).toMatch(/must have required property 'detail'/);
    expect(check.problem("GET", "/api/things/7", answer(418, { detail: "teapot" }))).toMatch(/418: status not documented/);
  });

  it("checks what a test fetches from a server in another process, as the body is read", async () => {
    const answers: Record<string, [number, string]> = {
      "/api/openapi.json": [200, JSON.stringify(doc)],
      "/api/things/1": [200, '{"count":1}'],
      "/api/things/2": [200, '{"count":"one"}'],
      "/api/things/3": [418, '{"detail":"teapot"}'],
      "/elsewhere": [200, '{"count":"anything"}'],
    };
    const other = createServer((req, res) => {
      const [status, body] = answers[req.url!] ?? [404, '{"detail":"none"}'];
      res.writeHead(status, { "content-type": "application/json" }).end(body);
    });
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    const stop = await checkFetchesAgainstOpenApi(url);
    try {
      expect(await (await fetch(`${url}/api/things/1`)).json()).toEqual({ count: 1 });
      const drifted = await fetch(`${url}/api/things/2`);
      expect(drifted.status).toBe(200);
      await expect(drifted.text()).rejects.toThrow(/OpenAPI drift: GET \/api\/things\/\{id\} → 200[\s\S]*\/count must be integer/);
      await expect(fetch(`${url}/api/things/3`)).rejects.toThrow(/418: status not documented/);
      expect((await fetch(`${url}/elsewhere`)).status).toBe(200);
      stop();
      expect(await (await fetch(`${url}/api/things/2`)).json()).toEqual({ count: "one" });
    } finally {
      stop();
      await new Promise((resolve) => other.close(resolve));
    }
  });
});
