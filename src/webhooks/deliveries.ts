import type { Scope } from "../accounts/scope.ts";
import { json, type Database, type Queryable } from "../db/database.ts";
import { conflict, notFound } from "../errors.ts";
import { uuidv7 } from "../ids/uuid-v7.ts";
import { Conditions } from "../versioning/sql.ts";
import { applyWindow, type Windowing } from "../versioning/windowing.ts";
import { enqueueDeliveries } from "./fan-out.ts";

/** One try of a delivery, as the delivery log keeps it. */
export interface AttemptRecord {
  attempt: number;
  started_at: string;
  status_code: number | null;
  latency_ms: number;
  response: string | null;
  error: string | null;
  /** When the next attempt is due, if there is one. */
  retry_in_ms: number | null;
}

/** What a delivery sent and got, as the reference's `WebhookDeliveryData` names it. */
export interface DeliveryData {
  event_type?: string;
  url?: string;
  headers?: Record<string, string>;
  payload?: unknown;
  response?: { status_code?: number; body?: string };
  error?: string;
}

export interface DeliveryRow {
  id: string;
  project_id: string;
  subscription_id: string;
  event_id: string;
  event_type: string;
  redelivery_of: string | null;
  status_code: string;
  status_message: string;
  data: DeliveryData | null;
  attempts: AttemptRecord[];
  created_at: Date;
  updated_at: Date | null;
  created_by_id: string | null;
}

/** The reference's delivery shape, with every attempt under `attempts`. */
export function deliveryRecord(row: DeliveryRow) {
  return {
    id: row.id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at?.toISOString(),
    created_by_id: row.created_by_id ?? undefined,
    status: { code: row.status_code, message: row.status_message },
    data: row.data ?? undefined,
    subscription_id: row.subscription_id,
    event_id: row.event_id,
    redelivery_of: row.redelivery_of ?? undefined,
    attempts: row.attempts,
  };
}

/** Records an attempt and the delivery's status after it. */
export async function recordAttempt(
  db: Queryable, id: string, status: { code: string; message: string }, data: DeliveryData, attempt: AttemptRecord,
): Promise<void> {
  await db.query(
    `UPDATE webhook_deliveries SET status_code = $2, status_message = $3, data = $4::jsonb,
       attempts = attempts || $5::jsonb, updated_at = now()
     WHERE id = $1`,
    [id, status.code, status.message, json(data), json([attempt])],
  );
}

/** Settles a delivery without an attempt (its subscription was stopped, or its payload cannot be sent). */
export async function settleDelivery(
  db: Queryable, id: string, message: string, data: DeliveryData | null,
): Promise<void> {
  await db.query(
    `UPDATE webhook_deliveries SET status_code = '0', status_message = $2, data = coalesce($3::jsonb, data),
       updated_at = now()
     WHERE id = $1`,
    [id, message, json(data)],
  );
}

/** A delivery of the caller's project, or a 404. */
export async function getDelivery(db: Queryable, scope: Scope, id: string): Promise<DeliveryRow> {
  const [row] = await db.query<DeliveryRow>(
    "SELECT * FROM webhook_deliveries WHERE id = $1 AND project_id = $2", [id, scope.projectId],
  );
  if (!row) throw notFound(`Webhook delivery ${id} not found`);
  return row;
}

/** The filter of a delivery query. */
export interface DeliveryFilter {
  status?: { code?: string | null; message?: string | null } | null;
  subscription_id?: string | null;
  event_id?: string | null;
}

/** Deliveries of the project (a subscription's log when it names one), newest first by default. */
export async function queryDeliveries(
  db: Queryable, scope: Scope, filter: DeliveryFilter | null | undefined, windowing: Windowing | null | undefined,
): Promise<DeliveryRow[]> {
  const where = new Conditions().add("project_id = ?", scope.projectId);
  if (filter?.subscription_id) where.add("subscription_id = ?::uuid", filter.subscription_id);
  if (filter?.event_id) where.add("event_id = ?::uuid", filter.event_id);
  if (filter?.status?.code) where.add("status_code = ?", filter.status.code);
  if (filter?.status?.message) where.add("status_message = ?", filter.status.message);
  const { tail, limit } = applyWindow(where, "id", windowing, "created_at");
  const rows = await db.query<DeliveryRow>(`SELECT * FROM webhook_deliveries WHERE ${where} ${tail}`, where.params);
  return rows.slice(0, limit);
}

/** What POST /webhooks/deliveries records: a delivery made elsewhere, stored as given (the reference's route). */
export interface DeliveryInput {
  id?: string | null;
  status: { code?: string | null; message?: string | null };
  data?: DeliveryData | null;
  subscription_id: string;
  event_id: string;
}

/** Stores a delivery record for a subscription of the project (nothing is sent). */
export async function createDelivery(db: Queryable, scope: Scope, input: DeliveryInput): Promise<DeliveryRow> {
  const [row] = await db.query<DeliveryRow>(
    `INSERT INTO webhook_deliveries (id, project_id, subscription_id, event_id, event_type, status_code, status_message,
       data, created_by_id)
     SELECT $1, $2, s.id, $4, coalesce($5, 'unknown'), $6, $7, $8::jsonb, $9
     FROM webhook_subscriptions s WHERE s.id = $3 AND s.project_id = $2
     ON CONFLICT (id) DO NOTHING RETURNING *`,
    [input.id ?? uuidv7(), scope.projectId, input.subscription_id, input.event_id, input.data?.event_type ?? null,
      input.status.code ?? "0", input.status.message ?? "unknown", json(input.data), scope.userId],
  );
  if (!row) {
    await getDeliveryOwner(db, scope, input.subscription_id);
    throw conflict(`Webhook delivery ${input.id} exists already`);
  }
  return row;
}

async function getDeliveryOwner(db: Queryable, scope: Scope, subscriptionId: string): Promise<void> {
  const rows = await db.query(
    "SELECT 1 FROM webhook_subscriptions WHERE id = $1 AND project_id = $2", [subscriptionId, scope.projectId],
  );
  if (rows.length === 0) throw notFound(`Webhook subscription ${subscriptionId} not found`);
}

/**
 * Sends a delivery's event to its subscription again, as a new delivery (its own id and Idempotency-Key, its own
 * retries) that names the one it repeats. The subscription must be active.
 */
export async function redeliver(db: Database, scope: Scope, id: string): Promise<DeliveryRow> {
  return db.transaction(async (tx) => {
    const original = await getDelivery(tx, scope, id);
    const [sub] = await tx.query<{ is_active: boolean }>(
      "SELECT is_active FROM webhook_subscriptions WHERE id = $1", [original.subscription_id],
    );
    if (!sub.is_active) {
      throw conflict(`Webhook subscription ${original.subscription_id} is stopped; start it to redeliver`);
    }
    const [newId] = await enqueueDeliveries(tx, scope.projectId, original.event_id, original.event_type,
      [original.subscription_id], { redeliveryOf: original.id, userId: scope.userId });
    return getDelivery(tx, scope, newId);
  });
}
