import swagger from "@fastify/swagger";
import type { SwaggerTransform } from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";

const pkg = { name: "Tessera", version: process.env.npm_package_version ?? "0.1.0" };

/** Every error a client can meet, as the error handler answers it (src/http/error-handler.ts). */
export const ERROR_STATUSES: Record<string, string> = {
  400: "Malformed request (body, multipart form, URL)",
  401: "Missing or invalid API key",
  403: "The key may not take this action",
  404: "No such resource in this project",
  409: "Conflict with the current state (a slug taken, a stale base revision)",
  413: "Body or file larger than its limit",
  415: "Unsupported content type",
  422: "Invalid input: `detail` lists each problem with its location",
  429: "Too many requests or concurrent runs",
  503: "Database unavailable or busy: retry later",
};

const ERROR_SCHEMAS = {
  ValidationIssue: {
    type: "object",
    required: ["loc", "msg", "type"],
    properties: {
      loc: { type: "array", items: { anyOf: [{ type: "string" }, { type: "integer" }] } },
      msg: { type: "string" },
      type: { type: "string" },
    },
    additionalProperties: true,
  },
  ErrorResponse: {
    type: "object",
    required: ["detail"],
    description: "An error: `detail` is a message, a list of validation issues, or an object naming what failed",
    properties: {
      detail: {
        anyOf: [
          { type: "string" },
          { type: "array", items: { $ref: "#/components/schemas/ValidationIssue" } },
          { type: "object", additionalProperties: true },
        ],
      },
    },
    additionalProperties: true,
  },
};

/** `components.responses.Error{status}`: one shared answer per status, referenced by every operation. */
const ERROR_RESPONSES = Object.fromEntries(Object.entries(ERROR_STATUSES).map(([status, description]) => [
  `Error${status}`, { description, content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorResponse" } } } },
]));

type Operation = { responses?: Record<string, unknown> };

/** Adds the shared `{detail}` error answers to every operation that does not describe its own. */
function documentErrors(openapiObject: Record<string, any>): Record<string, any> {
  openapiObject.components = { ...openapiObject.components };
  openapiObject.components.schemas = { ...openapiObject.components.schemas, ...ERROR_SCHEMAS };
  openapiObject.components.responses = { ...openapiObject.components.responses, ...ERROR_RESPONSES };
  for (const item of Object.values<Record<string, Operation>>(openapiObject.paths ?? {})) {
    for (const operation of Object.values(item)) {
      const responses = (operation.responses ??= {});
      for (const status of Object.keys(ERROR_STATUSES)) responses[status] ??= { $ref: `#/components/responses/Error${status}` };
      // An answer no schema describes yet is still documented as the JSON object it is.
      const success = Object.keys(responses).filter((status) => status.startsWith("2") && status !== "204");
      for (const status of success) {
        const r = responses[status] as { content?: unknown };
        if (!r.content) r.content = { "application/json": { schema: { type: "object", additionalProperties: true } } };
      }
    }
  }
  return openapiObject;
}

/**
 * A route option that documents what the route schema cannot carry without changing behaviour: a
 * multipart/form-data body (the multipart parser reads it as a stream, so a body schema must not be
 * validated) and answers whose response schema would make the serialiser drop or coerce fields.
 */
export function documentationOnly(extra: { body?: object; consumes?: string[]; response?: Record<number, object> }): { swaggerTransform: SwaggerTransform } {
  return {
    swaggerTransform: ({ schema, url }) => ({
      url,
      schema: {
        ...schema,
        ...(extra.consumes ? { consumes: extra.consumes } : {}),
        ...(extra.body ? { body: extra.body } : {}),
        ...(extra.response ? { response: { ...(schema as { response?: object }).response, ...extra.response } } : {}),
      } as never,
    }),
  };
}

/** OpenAPI 3.2 from the route schemas, served at /api/openapi.json, with a browsable reference at /api/docs. */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: "3.2.0",
      info: {
        title: `${pkg.name} API`,
        version: pkg.version,
        description: "Versioned testsets, applications, workflows, evaluators and environments. Authenticate with `Authorization: ApiKey <key>`.",
      },
      components: { securitySchemes: { ApiKey: { type: "apiKey", in: "header", name: "Authorization", description: "`ApiKey <key>`" } } },
      security: [{ ApiKey: [] }],
    },
    transformObject: (document) => documentErrors((document as { openapiObject: Record<string, any> }).openapiObject) as never,
  });
  await app.register(swaggerUi, { routePrefix: "/api/docs", staticCSP: true });
}
