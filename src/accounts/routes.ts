import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import type { AppContext } from "../context.ts";
import { notFound } from "../errors.ts";
import { apiKeyOf } from "../http/authentication.ts";
import { documentationOnly } from "../http/openapi.ts";
import { Nullable } from "../schema-parts.ts";
import { checkPermission } from "./permissions.ts";
import { userProfile } from "./profile.ts";
import { currentProject } from "./projects.ts";

const PermissionQuery = Type.Object({
  action: Nullable(Type.String()),
  resource_type: Nullable(Type.String()),
  resource_id: Nullable(Type.String()),
  scope_type: Nullable(Type.String()),
  scope_id: Nullable(Type.String()),
  project_id: Nullable(Type.String()),
});

const Str = Type.String();
const Profile = Type.Object({ id: Str, uid: Str, email: Str, username: Str, created_at: Str, updated_at: Str }, { additionalProperties: true });
const Project = Type.Object({
  organization_id: Str, organization_name: Nullable(Str), workspace_id: Str, workspace_name: Nullable(Str),
  project_id: Str, project_name: Nullable(Str), is_default_project: Type.Boolean(), user_role: Nullable(Str), is_demo: Type.Boolean(),
}, { additionalProperties: true });
const Permission = Type.Object({ effect: Type.Literal("allow"), credentials: Str }, { additionalProperties: true });
const answers = (schema: object) => documentationOnly({ response: { 200: schema } });

const ProjectParam = Type.Object({ project_id: Type.String() });

/** The caller's account as the reference shows it: profile, projects, permission checks. */
export async function accountRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get("/profile", { schema: { tags: ["Profile"], summary: "The user behind the API key" }, config: answers(Profile) }, async (req) =>
    userProfile(ctx.db, req.scope));

  const projectTags = ["Projects"];
  app.get("/projects/", {
    schema: { tags: projectTags, summary: "The caller's projects (an API key sees its own)" }, config: answers(Type.Array(Project)),
  }, async (req) => [await currentProject(ctx.db, req.scope)]);
  app.get("/projects/current", {
    schema: { tags: projectTags, summary: "The caller's project" }, config: answers(Project),
  }, async (req) => currentProject(ctx.db, req.scope));
  app.get("/projects/:project_id", {
    schema: { tags: projectTags, summary: "A project of the caller", params: ProjectParam }, config: answers(Project),
  }, async (req) => {
    const project = await currentProject(ctx.db, req.scope);
    const wanted = (req.params as { project_id: string }).project_id.toLowerCase();
    if (wanted !== project.project_id) throw notFound("Project not found");
    return project;
  });

  app.get("/access/permissions/check", {
    schema: { tags: ["Access"], summary: "May the caller take an action on a resource?", querystring: PermissionQuery }, config: answers(Permission),
  }, async (req) => {
    // The reference mints a short-lived token here; the caller's own key serves the same purpose.
    const credentials = `ApiKey ${apiKeyOf(req.headers.authorization ?? "")}`;
    return checkPermission(ctx.db, req.scope, req.query as Record<string, string | undefined>, credentials);
  });
}
