import compress from "@fastify/compress";
import Fastify, { LogController, type FastifyInstance, type onSendHookHandler } from "fastify";
import { adminAccountsRoutes } from "../admin/accounts-routes.ts";
import { setKeyMaxAge } from "../accounts/api-keys.ts";
import { ReferenceCache } from "../cache/reference-cache.ts";
import type { AppContext } from "../context.ts";
import { evaluationWorker } from "../evaluations/execution/worker.ts";
import { webhookWorker } from "../webhooks/worker.ts";
import { SandboxPool } from "../runtime/code/sandbox-pool.ts";
import { retentionWorker } from "../tracing/retention-worker.ts";
import { TraceWriter } from "../traces/trace-writer.ts";
import { authenticate, requireApiKey } from "./authentication.ts";
import { applyServerLimits, connectionOptions, limitBodyIdle } from "./connection-limits.ts";
import { consoleRoutes } from "./console.ts";
import { healthRoutes } from "./health-routes.ts";
import { FrontDoor } from "./front-door.ts";
import { frameworkErrors, notFoundHandler, registerErrorHandling } from "./error-handler.ts";
import { reportIgnoredFields } from "./ignored-fields.ts";
import { registerJsonBody } from "./json-body.ts";
import { registerOpenApi } from "./openapi.ts";
import { requestId } from "./request-id.ts";
import { requestLogger } from "./request-logger.ts";
import { requestsInFlight } from "./requests-in-flight.ts";
import { projectRoutes } from "./routes.ts";
import { servicesRoutes } from "./services-routes.ts";
import { lazySerializers } from "./serialization.ts";
import { validatorCompiler } from "./validation.ts";

export interface ServerOptions {
  logger?: boolean | object;
}

// POST routes that only read: everything else that is not a GET may change what a reference resolves to.
const READ_BY_POST = /\/(query|retrieve|log|download|resolve|diff|inspect|compare)\/?$/;
// Evaluations and annotation queues write runs and results, ingestion writes spans, webhooks their subscriptions and
// deliveries: never what a reference resolves to. A simple trace's edit or delete writes only its span; creating one,
// or any annotation write, may create an evaluator.
const KEEPS_REFERENCES =
  /^(\/api)?\/(((simple\/)?(evaluations|queues)|otlp|tracing|traces|spans|webhooks)\/|simple\/traces\/[0-9a-fA-F-]{32,36}\/?(\?|$))/;
const writes = (method: string, url: string) =>
  method !== "GET" && method !== "HEAD" && !(method === "POST" && READ_BY_POST.test(url)) && !KEEPS_REFERENCES.test(url);

export async function buildServer(ctx: AppContext, options: ServerOptions = {}): Promise<FastifyInstance> {
  const logsRequests = ctx.config.logLevel === "debug" || ctx.config.logLevel === "trace";
  // A server that logs every request lets Fastify see every request.
  const frontDoor = logsRequests ? undefined : new FrontDoor();
  const app = Fastify({
    serverFactory: frontDoor?.serverFactory,
    logger: options.logger ?? { level: ctx.config.logLevel },
    // Two lines per request buried the first-start banner: requests are logged at debug and trace only
    // (error-handler.ts logs errors either way).
    logController: new LogController({ disableRequestLogging: !logsRequests }),
    bodyLimit: ctx.config.bodyLimit,
    // Fastify would take the header as given; genReqId reads it itself so that only a well-formed one is kept.
    requestIdHeader: false,
    genReqId: requestId,
    childLoggerFactory: requestLogger,
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true },
    frameworkErrors,
    // Response serializers are compiled at a route's first answer (serialization.ts), validators likewise.
    schemaController: { compilersFactory: { buildSerializer: lazySerializers } },
    ...connectionOptions(ctx.config),
  });
  applyServerLimits(app.server, ctx.config);
  limitBodyIdle(app.server, ctx.config.bodyTimeoutMs, app.log);
  app.setValidatorCompiler(validatorCompiler);
  app.removeContentTypeParser("text/plain");
  registerJsonBody(app);
  registerErrorHandling(app);
  reportIgnoredFields(app);
  // Hooks on every request are written in callback style: an async hook costs a promise per request.
  app.addHook("onRequest", (request, reply, done) => {
    reply.header("x-request-id", request.id);
    done();
  });
  await registerOpenApi(app);
  // Large answers (queries, testset downloads) are compressed when the client asks; brotli's default
  // level is too slow for streamed downloads, so gzip and deflate only.
  await app.register(compress, { threshold: 1024, encodings: ["gzip", "deflate"], globalDecompression: false });
  setKeyMaxAge(ctx.config.cacheMaxAgeMs);
  const cache = ctx.cache ?? new ReferenceCache(undefined, ctx.config.cacheMaxAgeMs);
  const stopListening = await cache.connect(ctx.db, app.log);
  app.addHook("onClose", stopListening);
  const traceErrors = (error: unknown) => app.log.error({ err: error }, "could not store traces");
  const traces = ctx.traces ?? new TraceWriter(ctx.db, traceErrors, { quiet: requestsInFlight(app.server).quiet });
  const sandbox = ctx.sandbox ?? new SandboxPool(ctx.config.sandbox);
  const routeContext: AppContext = { ...ctx, cache, traces, sandbox, frontDoor };
  if (frontDoor) app.addHook("preClose", (done) => (frontDoor.close(), done()));
  const retention = retentionWorker(ctx.db, ctx.config, (error) => app.log.error({ err: error }, "span retention failed"));
  // Started first: on the embedded database a starting worker takes back every running job as orphaned, and a
  // retention sweep taken back is only run again, where an evaluation batch would be run twice at once.
  app.addHook("onReady", () => retention.start());
  const jobs = evaluationWorker(routeContext, (error) => app.log.error({ err: error }, "evaluation job failed"));
  if (jobs) app.addHook("onReady", () => jobs.start());
  const deliveries = webhookWorker(routeContext, (error) => app.log.error({ err: error }, "webhook delivery failed"));
  if (deliveries) app.addHook("onReady", () => deliveries.start());
  // Running jobs are handed back first: their last traces are then flushed with everyone else's.
  app.addHook("onClose", async () => {
    await retention.stop();
    await Promise.all([jobs?.stop(), deliveries?.stop()]);
    await sandbox.close();
    await traces.flush();
  });

  await app.register(async (api) => {
    await api.register(healthRoutes, ctx);
    api.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
    if (ctx.config.adminKey) await api.register(adminAccountsRoutes, { db: ctx.db, adminKey: ctx.config.adminKey });
    // An unknown path needs a key like a known one, so that a caller without one learns nothing about
    // which routes exist. Admin paths are exempt: they are authorised by the admin key, or absent.
    // The hook lives in a context of its own that holds only the not-found handler: routes skip it.
    await api.register(async (unknown) => {
      unknown.addHook("onRequest", (request, _reply, done) => {
        if (request.url.startsWith("/api/admin/")) return done();
        authenticate(ctx.db, request).then(() => done(), done);
      });
      unknown.setNotFoundHandler(notFoundHandler);
    });
    await api.register(async (project) => {
      requireApiKey(project, ctx.db);
      // Only routes that write get the hook: reads (the hot path) run no onSend hook at all.
      const invalidate: onSendHookHandler = (request, reply, payload, done) => {
        if (reply.statusCode >= 400) return done(null, payload);
        cache.invalidate(request.scope.projectId).then(() => done(null, payload), done);
      };
      project.addHook("onRoute", (route) => {
        if (![route.method].flat().some((method) => writes(method, route.url))) return;
        route.onSend = [...[route.onSend ?? []].flat(), invalidate];
      });
      await project.register(projectRoutes, routeContext);
    });
  }, { prefix: "/api" });
  await app.register(servicesRoutes, routeContext);
  // The web console (console/dist): `/`, its assets, and index.html for the page paths a browser opens.
  await app.register(consoleRoutes);

  return app;
}
