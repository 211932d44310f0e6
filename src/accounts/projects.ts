import type { Queryable } from "../db/database.ts";
import type { Scope } from "./scope.ts";

/** The reference's `ProjectsResponse`: a project with its workspace, organization and the caller's role. */
export interface ProjectRecord {
  organization_id: string;
  organization_name: string;
  workspace_id: string;
  workspace_name: string;
  project_id: string;
  project_name: string;
  is_default_project: boolean;
  user_role: string | null;
  is_demo: boolean;
}

/** The caller's project (an API key belongs to exactly one), with the role its user holds there. */
export async function currentProject(db: Queryable, scope: Scope): Promise<ProjectRecord> {
  const [row] = await db.query<ProjectRecord>(
    `SELECT o.id AS organization_id, o.name AS organization_name, w.id AS workspace_id, w.name AS workspace_name,
            p.id AS project_id, p.name AS project_name, p.is_default AS is_default_project,
            (SELECT m.role FROM memberships m
              WHERE m.user_id = $2 AND m.scope = 'project' AND m.scope_id = p.id) AS user_role,
            false AS is_demo
       FROM projects p JOIN workspaces w ON w.id = p.workspace_id JOIN organizations o ON o.id = p.organization_id
      WHERE p.id = $1`,
    [scope.projectId, scope.userId],
  );
  return row;
}
