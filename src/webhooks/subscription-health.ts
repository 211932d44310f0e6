import type { Queryable } from "../db/database.ts";
import type { AttemptOutcome } from "./send.ts";

/** Ends a subscription's failure streak (an attempt succeeded). */
export async function markHealthy(db: Queryable, subscriptionId: string): Promise<void> {
  await db.query(
    "UPDATE webhook_subscriptions SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL", [subscriptionId],
  );
}

/**
 * Notes a failed attempt: the streak starts now unless it runs already, and a streak older than `pauseAfterMs`
 * (0: never) pauses the subscription, saying why. True when the subscription is paused (now or before).
 */
export async function markFailing(
  db: Queryable, subscriptionId: string, pauseAfterMs: number, outcome: AttemptOutcome,
): Promise<boolean> {
  const last = outcome.error ?? `HTTP ${outcome.statusCode}`;
  const [row] = await db.query<{ is_active: boolean }>(
    `UPDATE webhook_subscriptions SET failing_since = coalesce(failing_since, now()),
       is_active = is_active AND NOT ($2 > 0 AND coalesce(failing_since, now()) <= now() - make_interval(secs => $2 / 1000.0)),
       paused_at = CASE WHEN is_active AND $2 > 0 AND coalesce(failing_since, now()) <= now() - make_interval(secs => $2 / 1000.0)
         THEN now() ELSE paused_at END,
       paused_reason = CASE WHEN is_active AND $2 > 0 AND coalesce(failing_since, now()) <= now() - make_interval(secs => $2 / 1000.0)
         THEN 'Paused: every delivery attempt failed since ' || to_char(coalesce(failing_since, now()) AT TIME ZONE 'UTC',
           'YYYY-MM-DD"T"HH24:MI:SS"Z"') || ' (TESSERA_WEBHOOK_PAUSE_AFTER_MS=' || $2 || '); last error: ' || $3
         ELSE paused_reason END
     WHERE id = $1 RETURNING is_active`,
    [subscriptionId, pauseAfterMs, last.slice(0, 500)],
  );
  return row ? !row.is_active : true;
}
