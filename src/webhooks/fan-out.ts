import { json, type Queryable } from "../db/database.ts";
import { uuidv7 } from "../ids/uuid-v7.ts";
import { enqueue } from "../jobs/queue.ts";

/** The job queue deliveries go through (src/jobs/queue.ts). */
export const DELIVERY_QUEUE = "webhooks.deliveries";

// Retries are bounded by time (TESSERA_WEBHOOK_RETRY_WINDOW_MS), not by claims: a claim also counts when a delivery
// waits for its subscriber's turn.
const UNBOUNDED_CLAIMS = 1_000_000;

/** The payload of a delivery job: the delivery row holds the rest. */
export interface DeliveryJob {
  delivery_id: string;
}

/**
 * Creates a pending delivery of event `eventId` for each subscription and a job that sends it, in the caller's
 * transaction; the delivery id is the job's key, so a delivery is never queued twice.
 */
export async function enqueueDeliveries(
  tx: Queryable, projectId: string, eventId: string, eventType: string, subscriptionIds: string[],
  options: { redeliveryOf?: string | null; userId?: string | null } = {},
): Promise<string[]> {
  const ids = subscriptionIds.map(() => uuidv7());
  await tx.query(
    `INSERT INTO webhook_deliveries
       (id, project_id, subscription_id, event_id, event_type, redelivery_of, created_by_id)
     SELECT d.id, $2, d.subscription_id, $3, $4, $5, $6
     FROM jsonb_to_recordset($1::jsonb) AS d (id uuid, subscription_id uuid)`,
    [json(ids.map((id, i) => ({ id, subscription_id: subscriptionIds[i] }))), projectId, eventId, eventType,
      options.redeliveryOf ?? null, options.userId ?? null],
  );
  await enqueue(tx, ids.map((id) => ({
    queue: DELIVERY_QUEUE, projectId, key: id, payload: { delivery_id: id } satisfies DeliveryJob,
    maxAttempts: UNBOUNDED_CLAIMS,
  })));
  return ids;
}
