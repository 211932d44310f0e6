import { json, type Queryable } from "../db/database.ts";
import type { EventType } from "./event.ts";

/** Stores an event that goes to no subscription by itself (a test delivery's, sent by its route). */
export async function storeEvent(
  db: Queryable, id: string, projectId: string, type: EventType, attributes: Record<string, unknown>, at: Date,
): Promise<void> {
  await db.query(
    "INSERT INTO events (id, project_id, event_type, attributes, created_at) VALUES ($1, $2, $3, $4::jsonb, $5)",
    [id, projectId, type, json(attributes), at],
  );
}
