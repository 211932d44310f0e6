import type { Queryable } from "../db/database.ts";
import { json } from "../db/database.ts";
import { uuidv7 } from "../ids/uuid-v7.ts";
import { seedProjectDefaults } from "./project-defaults.ts";

export interface AccountSpec {
  user: { email: string; username?: string | null; name?: string | null; is_admin?: boolean | null; metadata?: object | null };
  organization?: { name: string; slug?: string | null; metadata?: object | null } | null;
  workspace?: { name: string; slug?: string | null; metadata?: object | null } | null;
  project?: { name: string; slug?: string | null; is_default?: boolean | null; metadata?: object | null } | null;
}

export interface Account {
  user: { id: string; email: string; username: string | null; name: string | null; is_admin: boolean; created_at: string };
  organization: { id: string; name: string; slug: string; owner_user_id: string; created_at: string };
  workspace: { id: string; name: string; slug: string; organization_id: string; created_at: string };
  project: { id: string; name: string; slug: string; organization_id: string; workspace_id: string; is_default: boolean; created_at: string };
}

/** A slug that is free with high probability: the base name plus a short random suffix. */
export function uniqueSlug(base: string): string {
  const stem = base.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40) || "x";
  return `${stem}-${uuidv7().slice(-8)}`;
}

/**
 * Creates a user with an organization, workspace and project of their own (the reference's "simple
 * account"), inside the caller's transaction. New projects get the default environments unless
 * `seedDefaults` is false.
 */
export async function createAccount(tx: Queryable, spec: AccountSpec, seedDefaults = true): Promise<Account> {
  const now = new Date().toISOString();
  const u = spec.user;
  const user = { id: uuidv7(), email: u.email, username: u.username ?? null, name: u.name ?? null, is_admin: u.is_admin ?? false, created_at: now };
  await tx.query(
    "INSERT INTO users (id, email, username, name, is_admin, metadata, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
    [user.id, user.email, user.username, user.name, user.is_admin, json(u.metadata), now],
  );
  const orgName = spec.organization?.name ?? `${user.name ?? user.email}'s organization`;
  const organization = { id: uuidv7(), name: orgName, slug: spec.organization?.slug ?? uniqueSlug(orgName), owner_user_id: user.id, created_at: now };
  await tx.query(
    "INSERT INTO organizations (id, slug, name, owner_user_id, metadata, created_at) VALUES ($1, $2, $3, $4, $5, $6)",
    [organization.id, organization.slug, organization.name, user.id, json(spec.organization?.metadata), now],
  );
  const wsName = spec.workspace?.name ?? "Default workspace";
  const workspace = { id: uuidv7(), name: wsName, slug: spec.workspace?.slug ?? "default", organization_id: organization.id, created_at: now };
  await tx.query(
    "INSERT INTO workspaces (id, organization_id, slug, name, metadata, created_at) VALUES ($1, $2, $3, $4, $5, $6)",
    [workspace.id, organization.id, workspace.slug, workspace.name, json(spec.workspace?.metadata), now],
  );
  const projName = spec.project?.name ?? "Default project";
  const project = {
    id: uuidv7(), name: projName, slug: spec.project?.slug ?? uniqueSlug(projName),
    organization_id: organization.id, workspace_id: workspace.id, is_default: spec.project?.is_default ?? true, created_at: now,
  };
  await tx.query(
    "INSERT INTO projects (id, organization_id, workspace_id, slug, name, is_default, metadata, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    [project.id, organization.id, workspace.id, project.slug, project.name, project.is_default, json(spec.project?.metadata), now],
  );
  for (const [scope, scopeId] of [["organization", organization.id], ["workspace", workspace.id], ["project", project.id]]) {
    await tx.query("INSERT INTO memberships (id, user_id, scope, scope_id, role) VALUES ($1, $2, $3, $4, 'owner')", [uuidv7(), user.id, scope, scopeId]);
  }
  if (seedDefaults) await seedProjectDefaults(tx, { projectId: project.id, userId: user.id });
  return { user, organization, workspace, project };
}

export async function findProjectBySlug(db: Queryable, slug: string): Promise<{ id: string; owner: string | null } | null> {
  const [row] = await db.query<{ id: string; owner: string | null }>(
    "SELECT p.id, o.owner_user_id AS owner FROM projects p JOIN organizations o ON o.id = p.organization_id WHERE p.slug = $1",
    [slug],
  );
  return row ?? null;
}
