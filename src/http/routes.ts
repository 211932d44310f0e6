import type { FastifyInstance } from "fastify";
import { accountRoutes } from "../accounts/routes.ts";
import { keyRoutes } from "../accounts/key-routes.ts";
import { projectSettingsRoutes } from "../accounts/settings-routes.ts";
import { catalogRoutes } from "../catalog/routes.ts";
import type { AppContext } from "../context.ts";
import { environments } from "../kinds/environments.ts";
import { EnvironmentDataSchema, EnvironmentDeltaSchema, QueryDataSchema, WorkflowDataSchema, WorkflowDeltaSchema } from "../kinds/schemas.ts";
import { queries } from "../kinds/queries.ts";
import { testsets } from "../kinds/testsets.ts";
import { applications, evaluators, workflows } from "../kinds/workflows.ts";
import { testsetFileRoutes } from "../testsets/routes.ts";
import { TestsetDataSchema, TestsetDeltaSchema, TestsetReadOptions } from "../testsets/schemas.ts";
import { forkRoutes } from "./fork-routes.ts";
import { kindRoutes } from "./kind-routes.ts";
import { historyRoutes } from "./history-routes.ts";
import { simpleRoutes } from "./simple-routes.ts";
import { secretRoutes } from "../secrets/routes.ts";
import { traceRoutes } from "../traces/routes.ts";
import { otlpRoutes } from "../tracing/otlp/routes.ts";
import { tracingRoutes } from "../tracing/routes.ts";
import { simpleTraceRoutes } from "../tracing/simple/simple-trace-routes.ts";
import { aggregateRoutes } from "../tracing/aggregate-routes.ts";
import { analyticsRoutes } from "../tracing/analytics-routes.ts";
import { queueRoutes } from "../evaluations/queues/routes.ts";
import { evaluationRoutes } from "../evaluations/routes.ts";
import { simpleEvaluationRoutes } from "../evaluations/simple-routes.ts";
import { serverInfoRoutes } from "./server-info-routes.ts";
import { webhookRoutes } from "../webhooks/routes.ts";

/** Every route that acts inside the caller's project. */
export async function projectRoutes(app: FastifyInstance, ctx: AppContext) {
  const kinds = [applications, evaluators, workflows, environments, testsets];
  await app.register(catalogRoutes);
  for (const kind of [applications, evaluators, workflows]) {
    await app.register(kindRoutes(kind, { data: WorkflowDataSchema, delta: WorkflowDeltaSchema, deployable: true, embedKinds: kinds }), ctx);
    await app.register(simpleRoutes(kind, { data: WorkflowDataSchema }), ctx);
  }
  await app.register(kindRoutes(environments, { data: EnvironmentDataSchema, delta: EnvironmentDeltaSchema, embedKinds: kinds }), ctx);
  await app.register(simpleRoutes(environments, { data: EnvironmentDataSchema, guard: true }), ctx);
  await app.register(kindRoutes(testsets, { data: TestsetDataSchema, delta: TestsetDeltaSchema, readOptions: TestsetReadOptions, commitReadDefaults: { include_testcases: false } }), ctx);
  await app.register(simpleRoutes(testsets, { data: TestsetDataSchema }), ctx);
  await app.register(testsetFileRoutes, ctx);
  await app.register(kindRoutes(queries, { data: QueryDataSchema, delta: null }), ctx);
  await app.register(simpleRoutes(queries, { data: QueryDataSchema, emptyWhenMissing: true }), ctx);
  // Applications and evaluators resolve any workflow revision, as the reference's do.
  for (const kind of kinds) {
    await app.register(historyRoutes(kind, kinds, kind.family === "workflow" ? workflows : kind), ctx);
  }
  await app.register(historyRoutes(queries, [queries], queries), ctx);
  await app.register(secretRoutes, ctx);
  await app.register(accountRoutes, ctx);
  await app.register(projectSettingsRoutes, ctx);
  await app.register(traceRoutes, ctx);
  await app.register(otlpRoutes, ctx);
  await app.register(tracingRoutes, ctx);
  await app.register(aggregateRoutes, ctx);
  await app.register(analyticsRoutes, ctx);
  await app.register(simpleTraceRoutes("trace"), ctx);
  await app.register(simpleTraceRoutes("annotation"), ctx);
  await app.register(evaluationRoutes, ctx);
  await app.register(queueRoutes, ctx);
  await app.register(simpleEvaluationRoutes, ctx);
  await app.register(forkRoutes(kinds), ctx);
  await app.register(keyRoutes, ctx);
  await app.register(serverInfoRoutes, ctx);
  await app.register(webhookRoutes, ctx);
}
