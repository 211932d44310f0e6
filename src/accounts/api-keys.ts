import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Queryable } from "../db/database.ts";
import { Lru } from "../cache/lru.ts";
import { uuidv7 } from "../ids/uuid-v7.ts";

/**
 * An API key reads `tsk_<prefix>.<secret>`. The prefix is public and indexed, so a lookup is one row;
 * the stored SHA-256 of the whole key is then compared in constant time. The raw key is never stored.
 */
const KEY = /^tsk_([A-Za-z0-9_-]{12})\.([A-Za-z0-9_-]{32,})$/;

export interface ApiKeyOwner {
  apiKeyId: string;
  projectId: string;
  userId: string | null;
  expiresAt: Date | null;
}

export type KeyCheck = ApiKeyOwner | "malformed" | "unknown" | "revoked" | "expired";

const digest = (key: string) => createHash("sha256").update(key).digest();

export async function createApiKey(
  db: Queryable,
  projectId: string,
  userId: string | null,
  name: string | null = null,
  expiresAt: string | Date | null = null,
): Promise<{ id: string; key: string }> {
  const prefix = randomBytes(9).toString("base64url");
  const key = `tsk_${prefix}.${randomBytes(24).toString("base64url")}`;
  const id = uuidv7();
  await db.query(
    "INSERT INTO api_keys (id, project_id, user_id, name, prefix, hash, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
    [id, projectId, userId, name, prefix, digest(key), expiresAt],
  );
  return { id, key };
}

// Accepted keys, for a short while: every request authenticates, and most repeat a key.
// A revocation clears it here at once and, through NOTIFY, in the other processes.
let keyMaxAgeMs = 30_000;
/** How long an accepted key is taken on trust (TESSERA_CACHE_MAX_AGE_MS): the bound should a revocation go unheard. */
export const setKeyMaxAge = (ms: number) => {
  keyMaxAgeMs = ms;
};
const accepted = new Lru<string, { owner: ApiKeyOwner; until: number; expiresAt: number | null }>(10_000);
/** Revocations travel on the change feed (see ReferenceCache) with this payload. */
export const KEYS_REVOKED = "api-keys";
export const forgetApiKeys = () => accepted.clear();
let paused = false;
/** While paused (the change feed is down, so a revocation would go unheard), no key is remembered. */
export const pauseApiKeyCache = (pause: boolean) => {
  paused = pause;
};

/**
 * A key accepted moments ago, without touching the database (or a promise): the hot path. Keyed by
 * the key itself — the process holds it anyway while serving the request, and hashing it on every
 * request was a measurable share of that path.
 */
export function recentlyAccepted(key: string): ApiKeyOwner | undefined {
  const hit = accepted.get(key);
  const now = Date.now();
  return hit && hit.until > now && (hit.expiresAt === null || hit.expiresAt > now) ? hit.owner : undefined;
}

export async function checkApiKey(db: Queryable, key: string): Promise<KeyCheck> {
  const match = KEY.exec(key);
  if (!match) return "malformed";
  const hit = recentlyAccepted(key);
  if (hit) return hit;
  const check = await lookUp(db, key, match[1]);
  if (typeof check !== "string" && !paused) {
    accepted.set(key, { owner: check, until: Date.now() + keyMaxAgeMs, expiresAt: check.expiresAt?.getTime() ?? null });
  }
  return check;
}

async function lookUp(db: Queryable, key: string, prefix: string): Promise<KeyCheck> {
  const [row] = await db.query<{
    id: string; project_id: string; user_id: string | null; hash: Uint8Array; revoked_at: Date | null; expires_at: Date | null;
  }>("SELECT id, project_id, user_id, hash, revoked_at, expires_at FROM api_keys WHERE prefix = $1", [prefix]);
  if (!row || !timingSafeEqual(Buffer.from(row.hash), digest(key))) return "unknown";
  if (row.revoked_at) return "revoked";
  if (row.expires_at && row.expires_at.getTime() <= Date.now()) return "expired";
  return { apiKeyId: row.id, projectId: row.project_id, userId: row.user_id, expiresAt: row.expires_at };
}

/** A key as listed: never its secret nor its hash. */
export interface ApiKeyInfo {
  id: string;
  prefix: string;
  name: string | null;
  created_at: string;
  expiration_date: string | null;
  revoked_at: string | null;
  status: "active" | "revoked" | "expired";
  last_used_at: null;
}

/** A project's keys, oldest first, with what state each is in. */
export async function listApiKeys(db: Queryable, projectId: string): Promise<ApiKeyInfo[]> {
  const rows = await db.query<{
    id: string; prefix: string; name: string | null; created_at: Date; expires_at: Date | null; revoked_at: Date | null;
  }>(
    `SELECT id, prefix, name, created_at, expires_at, revoked_at FROM api_keys
     WHERE project_id = $1 ORDER BY created_at, id`,
    [projectId],
  );
  const now = Date.now();
  return rows.map((r) => ({
    id: r.id,
    prefix: r.prefix,
    name: r.name,
    created_at: r.created_at.toISOString(),
    expiration_date: r.expires_at?.toISOString() ?? null,
    revoked_at: r.revoked_at?.toISOString() ?? null,
    status: r.revoked_at ? "revoked" : r.expires_at && r.expires_at.getTime() <= now ? "expired" : "active",
    // Uses are not recorded (it would be a write per request); the field keeps the reference's shape.
    last_used_at: null,
  }));
}

/**
 * The key `given` names in the project — its id, its prefix, `tsk_<prefix>` or the whole key — or
 * null. A key of another project is not found.
 */
export async function findApiKey(
  db: Queryable,
  projectId: string | null,
  given: string,
): Promise<{ id: string; projectId: string; prefix: string } | null> {
  const text = given.trim();
  const prefix = /^(?:tsk_)?([A-Za-z0-9_-]{12})(?:\.[A-Za-z0-9_-]+)?$/.exec(text)?.[1];
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text) ? text : null;
  if (!prefix && !uuid) return null;
  const [row] = await db.query<{ id: string; project_id: string; prefix: string }>(
    `SELECT id, project_id, prefix FROM api_keys
     WHERE (prefix = $1 OR id = $2::uuid) AND ($3::uuid IS NULL OR project_id = $3::uuid)`,
    [prefix ?? null, uuid, projectId],
  );
  return row ? { id: row.id, projectId: row.project_id, prefix: row.prefix } : null;
}

/**
 * Revokes a key for good (it stays listed, as revoked). The process that revokes forgets its accepted
 * keys at once; the others hear it on the change feed, and a process that missed it stops accepting the
 * key when its cached acceptance runs out, `TESSERA_CACHE_MAX_AGE_MS` at the latest.
 */
export async function revokeApiKey(db: Queryable, id: string): Promise<void> {
  await db.query("UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL", [id]);
  forgetApiKeys();
  await db.query("SELECT pg_notify('tessera_changes', $1)", [KEYS_REVOKED]);
}
