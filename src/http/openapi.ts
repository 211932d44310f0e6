import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";

const pkg = { name: "Tessera", version: process.env.npm_package_version ?? "0.1.0" };

/** OpenAPI 3.1 generated from the route schemas, served at /api/openapi.json, with a browsable reference at /api/docs. */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: `${pkg.name} API`,
        version: pkg.version,
        description: "Versioned testsets, applications, workflows, evaluators and environments. Authenticate with `Authorization: ApiKey <key>`.",
      },
      components: { securitySchemes: { ApiKey: { type: "apiKey", in: "header", name: "Authorization", description: "`ApiKey <key>`" } } },
      security: [{ ApiKey: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: "/api/docs", staticCSP: true });
}
