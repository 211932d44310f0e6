import type { Queryable } from "../db/database.ts";
import { notFound } from "../errors.ts";
import type { Scope } from "./scope.ts";

/** The reference's `User` (GET /profile): `uid` is the user's id here, there being no separate auth id. */
export interface UserProfile {
  id: string;
  uid: string;
  email: string;
  username: string;
  created_at: string | null;
  updated_at: string | null;
}

/** The user behind the caller's API key; 404 for a key issued without a user. */
export async function userProfile(db: Queryable, scope: Scope): Promise<UserProfile> {
  const [row] = scope.userId ? await db.query<{
    id: string; email: string; username: string | null; name: string | null; created_at: Date; updated_at: Date | null;
  }>("SELECT id, email, username, name, created_at, updated_at FROM users WHERE id = $1", [scope.userId]) : [];
  if (!row) throw notFound("No user behind this API key");
  const created = row.created_at.toISOString();
  return {
    id: row.id,
    uid: row.id,
    email: row.email,
    username: row.username ?? row.name ?? row.email.split("@")[0],
    created_at: created,
    updated_at: row.updated_at?.toISOString() ?? created,
  };
}
