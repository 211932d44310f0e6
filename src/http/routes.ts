import type { FastifyInstance } from "fastify";
import { catalogRoutes } from "../catalog/routes.ts";
import type { AppContext } from "../context.ts";
import { environments } from "../kinds/environments.ts";
import { EnvironmentDataSchema, EnvironmentDeltaSchema, WorkflowDataSchema, WorkflowDeltaSchema } from "../kinds/schemas.ts";
import { applications, evaluators, workflows } from "../kinds/workflows.ts";
import { forkRoutes } from "./fork-routes.ts";
import { kindRoutes } from "./kind-routes.ts";
import { simpleRoutes } from "./simple-routes.ts";

/** Every route that acts inside the caller's project. */
export async function projectRoutes(app: FastifyInstance, ctx: AppContext) {
  await app.register(catalogRoutes);
  for (const kind of [applications, evaluators, workflows]) {
    await app.register(kindRoutes(kind, { data: WorkflowDataSchema, delta: WorkflowDeltaSchema, deployable: true }), ctx);
    await app.register(simpleRoutes(kind, { data: WorkflowDataSchema }), ctx);
  }
  await app.register(kindRoutes(environments, { data: EnvironmentDataSchema, delta: EnvironmentDeltaSchema }), ctx);
  await app.register(simpleRoutes(environments, { data: EnvironmentDataSchema, guard: true }), ctx);
  await app.register(forkRoutes([applications, evaluators, workflows, environments]), ctx);
}
