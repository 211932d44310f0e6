import type { Queryable } from "../db/database.ts";
import { HttpError } from "../errors.ts";
import { currentProject } from "./projects.ts";
import type { Scope } from "./scope.ts";

/*
 * GET /access/permissions/check, as the reference's services and SDK middlewares ask it: may the
 * caller `action` on `resource_type` (within `scope_type`/`scope_id`)? An API key acts for its
 * project's owner, so every known action is allowed on the resources the reference grants
 * (`service`, `local_secrets`); anything else is the reference's 403 "Forbidden".
 */

/** The reference's permission names (`Permission` of its access module). */
const ACTIONS = new Set([
  "view_applications", "edit_application", "run_service", "view_webhooks", "edit_webhooks", "view_secret",
  "edit_secret",
  "view_spans", "edit_spans", "view_folders", "edit_folders", "view_api_keys", "edit_api_keys", "view_workspace",
  "edit_workspace", "create_workspace", "delete_workspace", "modify_user_roles", "add_new_user_to_workspace",
  "edit_organization", "delete_organization", "add_new_user_to_organization", "reset_password", "view_billing",
  "edit_billing", "view_workflows", "edit_workflows", "run_workflows", "view_evaluators", "edit_evaluators",
  "view_environments", "edit_environments", "deploy_environments", "view_queries", "edit_queries", "view_testsets",
  "edit_testsets", "view_annotations", "edit_annotations", "view_invocations", "edit_invocations",
  "view_evaluation_runs", "edit_evaluation_runs", "view_evaluation_scenarios", "edit_evaluation_scenarios",
  "view_evaluation_results", "edit_evaluation_results", "view_evaluation_metrics", "edit_evaluation_metrics",
  "view_evaluation_queues", "edit_evaluation_queues", "view_events", "view_tools", "edit_tools", "run_tools",
  "view_triggers", "edit_triggers", "run_triggers", "view_sessions", "edit_sessions", "run_sessions", "view_mounts",
  "edit_mounts", "use_mounts",
]);

const RESOURCES = new Set(["service", "local_secrets"]);

export interface PermissionQuestion {
  action?: string | null;
  resource_type?: string | null;
  scope_type?: string | null;
  scope_id?: string | null;
}

const forbidden = () => new HttpError(403, "Forbidden");

/** Answers `{effect: "allow", credentials}` or throws the reference's 403. */
export async function checkPermission(db: Queryable, scope: Scope, q: PermissionQuestion, credentials: string) {
  if (!q.action || !q.resource_type || !ACTIONS.has(q.action) || !RESOURCES.has(q.resource_type)) throw forbidden();
  if (q.scope_type || q.scope_id) {
    const project = await currentProject(db, scope);
    const own: Record<string, string> = {
      project: project.project_id, workspace: project.workspace_id, organization: project.organization_id,
    };
    const id = q.scope_type ? own[q.scope_type] : undefined;
    if (!id || !q.scope_id || id.toLowerCase() !== q.scope_id.toLowerCase()) throw forbidden();
  }
  return { effect: "allow", credentials };
}
