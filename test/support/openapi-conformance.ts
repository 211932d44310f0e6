import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { ValidateFunction } from "ajv";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";

/** What the check reads of an answer (a light-my-request response has it, and so does a fetched one). */
export interface Answer {
  statusCode: number;
  body: string;
  headers: Record<string, string | string[] | number | undefined>;
}

type Document = {
  paths: Record<string, Record<string, { responses?: Record<string, Response> }>>;
  components?: { responses?: Record<string, Response> };
};
type SseBranch = { properties: { event: { enum: [string] }; data: { contentSchema: unknown } } };
type Response = { $ref?: string; content?: Record<string, { schema?: unknown; itemSchema?: { oneOf?: SseBranch[] } }> };

/**
 * Checks answers against the server's own OpenAPI document: the status must be documented for the
 * route and method, and a JSON body must match the documented schema. Each schema is compiled once.
 */
export class OpenApiConformance {
  readonly #doc: Document;
  readonly #ajv: Ajv2020;
  readonly #routes: { template: string; pattern: RegExp; params: number }[];
  readonly #compiled = new Map<string, ValidateFunction | null>();

  constructor(doc: Document) {
    this.#doc = doc;
    this.#ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    (addFormats as unknown as (ajv: Ajv2020) => void)(this.#ajv);
    this.#ajv.addSchema({ $id: "openapi", components: doc.components } as never);
    this.#routes = Object.keys(doc.paths).map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}$`),
      params: (template.match(/\{/g) ?? []).length,
    })).sort((a, b) => a.params - b.params);
  }

  /** The problem with an answer, or null when it matches the document (or its route is not documented at all). */
  problem(method: string, url: string, res: Answer): string | null {
    let path: string;
    try {
      path = decodeURI(url.split("?")[0]!);
    } catch {
      return null; // an undecodable URL never reaches a route
    }
    const route = this.#routes.find((r) => r.pattern.test(path) && this.#doc.paths[r.template]![method.toLowerCase()]);
    if (!route) return null;
    const where = `${method.toUpperCase()} ${route.template} → ${res.statusCode}`;
    const responses = this.#doc.paths[route.template]![method.toLowerCase()]!.responses ?? {};
    const declared = responses[String(res.statusCode)] ?? responses[`${String(res.statusCode)[0]}XX`] ?? responses.default;
    const documented = declared?.$ref ? this.#doc.components?.responses?.[declared.$ref.split("/").pop()!] : declared;
    if (!documented) return `${where}: status not documented in the OpenAPI document (documented: ${Object.keys(responses).join(", ")}); body: ${res.body.slice(0, 500)}`;
    const type = String(res.headers["content-type"] ?? "");
    if (/^text\/event-stream/.test(type)) return this.#streamProblem(where, documented, res.body);
    // A compressed body is checked by the tests that ask for compression, not here.
    if (!/json/.test(type) || /jsonl|ndjson/.test(type) || !res.body || res.headers["content-encoding"]) return null;
    const key = `${method.toUpperCase()} ${route.template} ${res.statusCode}`;
    let validate = this.#compiled.get(key);
    if (validate === undefined) {
      const schema = documented.content?.["application/json"]?.schema;
      validate = schema ? this.#ajv.compile(rebase(schema) as object) : null;
      this.#compiled.set(key, validate);
    }
    if (!validate) return `${where}: a JSON body is answered but no application/json schema is documented; body: ${res.body.slice(0, 500)}`;
    let body: unknown;
    try {
      body = JSON.parse(res.body);
    } catch {
      return `${where}: the body is not JSON although the content type says so`;
    }
    if (validate(body)) return null;
    return `${where}: the body does not match the documented schema:\n  ${errorsOf(validate)}\nbody: ${res.body.slice(0, 1000)}`;
  }

  /**
   * Server-sent events: each event's name must be one the stream's `itemSchema` lists (a `oneOf` branch per event),
   * and its `data` must be JSON matching that branch's `contentSchema`.
   */
  #streamProblem(where: string, documented: Response, body: string): string | null {
    const branches = documented.content?.["text/event-stream"]?.itemSchema?.oneOf;
    if (!branches) return `${where}: an event stream is answered but no text/event-stream itemSchema is documented`;
    const events = Object.fromEntries(branches.map((b) => [b.properties.event.enum[0], b.properties.data.contentSchema]));
    for (const block of body.split("\n\n").filter((b) => b.trim())) {
      const name = /^event: (.*)$/m.exec(block)?.[1] ?? "message";
      const data = block.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
      if (!events[name]) return `${where}: event "${name}" is not documented (documented: ${Object.keys(events).join(", ")})`;
      const key = `${where} event ${name}`;
      let validate = this.#compiled.get(key);
      if (!validate) this.#compiled.set(key, (validate = this.#ajv.compile(rebase(events[name]) as object)));
      let value: unknown;
      try {
        value = JSON.parse(data);
      } catch {
        return `${where}: event "${name}" carries data that is not JSON: ${data.slice(0, 200)}`;
      }
      if (!validate(value)) return `${where}: event "${name}" does not match its documented schema:\n  ${errorsOf(validate)}\ndata: ${data.slice(0, 500)}`;
    }
    return null;
  }
}

const errorsOf = (validate: ValidateFunction) =>
  (validate.errors ?? []).slice(0, 8).map((e) => `${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`).join("\n  ");

/** Local `#/components/...` references point into the document registered as "openapi". */
function rebase(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rebase);
  if (!schema || typeof schema !== "object") return schema;
  return Object.fromEntries(Object.entries(schema).map(([k, v]) =>
    [k, k === "$ref" && typeof v === "string" && v.startsWith("#/") ? `openapi${v}` : rebase(v)]));
}

/**
 * Makes every `app.inject` of this server fail when the answer drifts from the server's OpenAPI document
 * (the document is read once, on the first call).
 */
export function checkAnswersAgainstOpenApi(app: FastifyInstance): void {
  const inject = app.inject.bind(app) as (options: unknown) => Promise<LightMyRequestResponse>;
  let conformance: Promise<OpenApiConformance> | undefined;
  (app as { inject: unknown }).inject = (options?: unknown) => {
    if (options === undefined || typeof options === "function") return (inject as (o?: unknown) => unknown)(options);
    return (async () => {
      const res = await inject(options);
      const o = (typeof options === "string" ? { url: options } : options) as { method?: string; url?: string | { pathname?: string }; path?: string };
      const url = typeof o.url === "string" ? o.url : (o.url?.pathname ?? o.path ?? "/");
      if (url.startsWith("/api/openapi.json")) return res;
      conformance ??= inject({ method: "GET", url: "/api/openapi.json" }).then((r) => new OpenApiConformance(r.json()));
      const problem = (await conformance).problem(o.method ?? "GET", url, res);
      if (problem) throw new Error(`OpenAPI drift: ${problem}`);
      return res;
    })();
  };
}
