import { randomInt } from "node:crypto";
import type { Scope } from "../accounts/scope.ts";
import type { Config } from "../config.ts";
import { json, type Database, type Queryable } from "../db/database.ts";
import { badRequest, conflict, notFound, unprocessable } from "../errors.ts";
import { uuidv7 } from "../ids/uuid-v7.ts";
import { headerProblem } from "../runtime/net/header-text.ts";
import type { SecretCipher } from "../secrets/cipher.ts";
import { Conditions } from "../versioning/sql.ts";
import { applyWindow, type Windowing } from "../versioning/windowing.ts";
import { checkHookUrl } from "../workflows/hook-url.ts";
import type { AuthMode } from "./signing.ts";

/** A subscription's `data`, as the reference names it. */
export interface SubscriptionData {
  url: string;
  headers?: Record<string, string> | null;
  payload_fields?: unknown;
  auth_mode?: AuthMode | null;
  event_types?: string[] | null;
}

/** What create, edit and test read from a request's `subscription`. */
export interface SubscriptionInput {
  id?: string | null;
  name?: string | null;
  description?: string | null;
  tags?: Record<string, unknown> | null;
  meta?: Record<string, unknown> | null;
  data: SubscriptionData;
  flags?: { is_active?: boolean | null } | null;
  secret?: string | null;
}

/** A subscription row as stored. */
export interface SubscriptionRow {
  id: string;
  project_id: string;
  name: string | null;
  description: string | null;
  tags: Record<string, unknown> | null;
  meta: Record<string, unknown> | null;
  data: SubscriptionData;
  is_active: boolean;
  encrypted_secret: Uint8Array;
  failing_since: Date | null;
  paused_at: Date | null;
  paused_reason: string | null;
  created_at: Date;
  updated_at: Date | null;
  created_by_id: string | null;
  updated_by_id: string | null;
}

const SECRET_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A new signing secret: 32 letters and digits, as the reference makes them. */
export const generateSecret = (): string =>
  Array.from({ length: 32 }, () => SECRET_ALPHABET[randomInt(SECRET_ALPHABET.length)]).join("");

const iso = (d: Date | null) => (d ? d.toISOString() : undefined);

/** The reference's subscription shape; the secret only when `secret` is given (create, fetch, edit). */
export function subscriptionRecord(row: SubscriptionRow, secret?: string) {
  const status = row.paused_at
    ? { code: "paused", message: row.paused_reason ?? "paused", timestamp: iso(row.paused_at) }
    : row.failing_since
      ? { code: "failing", message: "every attempt since this time has failed", timestamp: iso(row.failing_since) }
      : undefined;
  return {
    id: row.id,
    name: row.name ?? undefined,
    description: row.description ?? undefined,
    tags: row.tags ?? undefined,
    meta: row.meta ?? undefined,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    created_by_id: row.created_by_id ?? undefined,
    updated_by_id: row.updated_by_id ?? undefined,
    data: Object.fromEntries(Object.entries(row.data).filter(([, v]) => v !== null && v !== undefined)),
    flags: { is_active: row.is_active },
    status,
    secret,
  };
}

/** Refuses (422) a URL deliveries would refuse and headers HTTP cannot carry, (400) authorization without a secret. */
export function checkSubscription(input: SubscriptionInput, config: Config, secretRequired: boolean): void {
  const loc = ["body", "subscription", "data"];
  checkHookUrl(input.data.url, config.allowPrivateHooks, [...loc, "url"]);
  const url = new URL(input.data.url);
  if (url.username || url.password) {
    const msg = "A webhook URL must not carry credentials";
    throw unprocessable([{ loc: [...loc, "url"], msg, type: "value_error" }]);
  }
  const problem = headerProblem(input.data.headers ?? {});
  if (problem) {
    throw unprocessable([{ loc: [...loc, "headers", problem.name], msg: problem.detail, type: "value_error" }]);
  }
  if (input.data.auth_mode === "authorization" && secretRequired && !input.secret) {
    throw badRequest("auth_mode 'authorization' needs a secret: the secret is sent as the Authorization header");
  }
}

const storedData = (data: SubscriptionData): SubscriptionData => ({
  url: data.url, headers: data.headers ?? null, payload_fields: data.payload_fields ?? null,
  auth_mode: data.auth_mode ?? null, event_types: data.event_types ?? null,
});

/** Creates a subscription (its secret generated unless given) within the project's limit; returns it and its secret. */
export async function createSubscription(
  db: Database, scope: Scope, cipher: SecretCipher, config: Config, input: SubscriptionInput,
): Promise<{ row: SubscriptionRow; secret: string }> {
  checkSubscription(input, config, true);
  const secret = input.secret || generateSecret();
  const row = await db.transaction(async (tx) => {
    // The project's row serialises creations, so concurrent ones cannot pass the limit together.
    await tx.query("SELECT 1 FROM projects WHERE id = $1 FOR UPDATE", [scope.projectId]);
    const [{ n }] = await tx.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM webhook_subscriptions WHERE project_id = $1", [scope.projectId],
    );
    const max = config.webhooks.maxSubscriptions;
    if (n >= max) {
      const limit = `TESSERA_WEBHOOK_MAX_SUBSCRIPTIONS=${max}`;
      throw conflict(`This project holds ${n} webhook subscriptions, the most allowed (${limit})`);
    }
    const [created] = await tx.query<SubscriptionRow>(
      `INSERT INTO webhook_subscriptions (id, project_id, name, description, tags, meta, data, event_types, is_active,
         encrypted_secret, created_by_id)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7::jsonb, $8::text[], $9, $10, $11) RETURNING *`,
      [uuidv7(), scope.projectId, input.name ?? null, input.description ?? null, json(input.tags), json(input.meta),
        json(storedData(input.data)), input.data.event_types ?? null, input.flags?.is_active ?? true,
        cipher.encrypt(secret), scope.userId],
    );
    return created;
  });
  return { row, secret };
}

/** A subscription of the caller's project, or a 404. */
export async function getSubscription(db: Queryable, scope: Scope, id: string): Promise<SubscriptionRow> {
  const [row] = await db.query<SubscriptionRow>(
    "SELECT * FROM webhook_subscriptions WHERE id = $1 AND project_id = $2", [id, scope.projectId],
  );
  if (!row) throw notFound(`Webhook subscription ${id} not found`);
  return row;
}

/**
 * Replaces a subscription's header, data and (when given) flags and secret. Turning it on again clears a pause.
 */
export async function editSubscription(
  db: Queryable, scope: Scope, cipher: SecretCipher, config: Config, id: string, input: SubscriptionInput,
): Promise<{ row: SubscriptionRow; secret: string }> {
  if (input.id && input.id !== id) throw badRequest(`Path subscription_id ${id} does not match body id ${input.id}`);
  checkSubscription(input, config, false);
  const [row] = await db.query<SubscriptionRow>(
    `UPDATE webhook_subscriptions SET name = $3, description = $4, tags = $5::jsonb, meta = $6::jsonb, data = $7::jsonb,
       event_types = $8::text[], encrypted_secret = coalesce($9, encrypted_secret), updated_at = now(),
       updated_by_id = $10, is_active = coalesce($11, is_active),
       failing_since = CASE WHEN $11 AND NOT is_active THEN NULL ELSE failing_since END,
       paused_at = CASE WHEN $11 THEN NULL ELSE paused_at END,
       paused_reason = CASE WHEN $11 THEN NULL ELSE paused_reason END
     WHERE id = $1 AND project_id = $2 RETURNING *`,
    [id, scope.projectId, input.name ?? null, input.description ?? null, json(input.tags), json(input.meta),
      json(storedData(input.data)), input.data.event_types ?? null, input.secret ? cipher.encrypt(input.secret) : null,
      scope.userId, input.flags?.is_active ?? null],
  );
  if (!row) throw notFound(`Webhook subscription ${id} not found`);
  return { row, secret: input.secret || cipher.decrypt(row.encrypted_secret) };
}

/** Starts (clearing a pause and the failure streak) or stops a subscription. */
export async function setActive(db: Queryable, scope: Scope, id: string, active: boolean): Promise<SubscriptionRow> {
  const [row] = await db.query<SubscriptionRow>(
    `UPDATE webhook_subscriptions SET is_active = $3, updated_at = now(), updated_by_id = $4,
       failing_since = CASE WHEN $3 THEN NULL ELSE failing_since END,
       paused_at = CASE WHEN $3 THEN NULL ELSE paused_at END,
       paused_reason = CASE WHEN $3 THEN NULL ELSE paused_reason END
     WHERE id = $1 AND project_id = $2 RETURNING *`,
    [id, scope.projectId, active, scope.userId],
  );
  if (!row) throw notFound(`Webhook subscription ${id} not found`);
  return row;
}

/** Deletes a subscription and its delivery log; a 404 when there is none. */
export async function deleteSubscription(db: Queryable, scope: Scope, id: string): Promise<void> {
  const rows = await db.query(
    "DELETE FROM webhook_subscriptions WHERE id = $1 AND project_id = $2 RETURNING id", [id, scope.projectId],
  );
  if (rows.length === 0) throw notFound(`Webhook subscription ${id} not found`);
}

/** The filter of a subscription query: name (a part of it, any case), description, tags and meta (contained). */
export interface SubscriptionFilter {
  name?: string | null;
  description?: string | null;
  tags?: Record<string, unknown> | null;
  meta?: Record<string, unknown> | null;
}

const likePattern = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Subscriptions of the project matching `filter`, newest first by default, a window at a time. */
export async function querySubscriptions(
  db: Queryable, scope: Scope, filter: SubscriptionFilter | null | undefined, windowing: Windowing | null | undefined,
): Promise<SubscriptionRow[]> {
  const where = new Conditions().add("project_id = ?", scope.projectId);
  if (filter?.name) where.add("name ILIKE ?", likePattern(filter.name));
  if (filter?.description) where.add("description ILIKE ?", likePattern(filter.description));
  if (filter?.tags) where.add("tags @> ?::jsonb", json(filter.tags));
  if (filter?.meta) where.add("meta @> ?::jsonb", json(filter.meta));
  const { tail, limit } = applyWindow(where, "id", windowing, "created_at");
  const sql = `SELECT * FROM webhook_subscriptions WHERE ${where} ${tail}`;
  const rows = await db.query<SubscriptionRow>(sql, where.params);
  return rows.slice(0, limit);
}
