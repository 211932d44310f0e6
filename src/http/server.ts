import Fastify, { type FastifyInstance, type FastifyPluginAsync } from "fastify";
import { randomUUID } from "node:crypto";
import { adminAccountsRoutes } from "../admin/accounts-routes.ts";
import type { AppContext } from "../context.ts";
import { authenticate, requireApiKey } from "./authentication.ts";
import { frameworkErrors, notFoundHandler, registerErrorHandling } from "./error-handler.ts";
import { registerJsonBody } from "./json-body.ts";
import { registerOpenApi } from "./openapi.ts";
import { projectRoutes } from "./routes.ts";
import { validatorCompiler } from "./validation.ts";

export interface ServerOptions {
  logger?: boolean | object;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;


export async function buildServer(ctx: AppContext, options: ServerOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? { level: ctx.config.logLevel },
    bodyLimit: ctx.config.bodyLimit,
    requestIdHeader: "x-request-id",
    genReqId: (req) => {
      const given = req.headers["x-request-id"];
      return typeof given === "string" && REQUEST_ID.test(given) ? given : randomUUID();
    },
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true },
    frameworkErrors,
  });
  app.setValidatorCompiler(validatorCompiler);
  app.removeContentTypeParser("text/plain");
  registerJsonBody(app);
  registerErrorHandling(app);
  app.addHook("onSend", async (request, reply) => {
    reply.header("x-request-id", request.id);
  });
  await registerOpenApi(app);

  await app.register(async (api) => {
    api.get("/health", { schema: { tags: ["Health"], summary: "Liveness", security: [] } }, async () => ({ status: "ok" }));
    api.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
    if (ctx.config.adminKey) await api.register(adminAccountsRoutes, { db: ctx.db, adminKey: ctx.config.adminKey });
    // An unknown path needs a key like a known one, so that a caller without one learns nothing about
    // which routes exist. Admin paths are exempt: they are authorised by the admin key, or absent.
    api.addHook("onRequest", async (request) => {
      if (request.is404 && !request.url.startsWith("/api/admin/")) await authenticate(ctx.db, request);
    });
    api.setNotFoundHandler(notFoundHandler);
    await api.register(async (project) => {
      requireApiKey(project, ctx.db);
      await project.register(projectRoutes, ctx);
    });
  }, { prefix: "/api" });

  return app;
}
