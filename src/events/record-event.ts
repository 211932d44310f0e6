import { json, type Queryable } from "../db/database.ts";
import { uuidv7 } from "../ids/uuid-v7.ts";
import { enqueueDeliveries } from "../webhooks/fan-out.ts";
import type { EventType } from "./event.ts";

/**
 * Stores an event of a project and, in the same statement, finds the active subscriptions that want it; each gets
 * a delivery job in the same transaction. Called inside the transaction of the change it records, so the change,
 * its event and its deliveries are committed together: a process that dies after the commit loses none of them.
 */
export async function recordEvent(
  tx: Queryable, projectId: string, type: EventType, attributes: Record<string, unknown>,
): Promise<string> {
  const id = uuidv7();
  const subscribers = await tx.query<{ id: string }>(
    `WITH stored AS (INSERT INTO events (id, project_id, event_type, attributes) VALUES ($1, $2, $3, $4::jsonb))
     SELECT id FROM webhook_subscriptions
     WHERE project_id = $2 AND is_active AND (event_types IS NULL OR $3 = ANY (event_types))`,
    [id, projectId, type, json(attributes)],
  );
  if (subscribers.length > 0) await enqueueDeliveries(tx, projectId, id, type, subscribers.map((s) => s.id));
  return id;
}
