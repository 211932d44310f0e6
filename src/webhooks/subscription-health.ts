import type { Queryable } from "../db/database.ts";
import type { AttemptOutcome } from "./send.ts";

/** Ends a subscription's failure streak (an attempt succeeded). */
export async function markHealthy(db: Queryable, subscriptionId: string): Promise<void> {
  await db.query(
    "UPDATE webhook_subscriptions SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL",
    [subscriptionId],
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
    `WITH streak AS (
       SELECT id, coalesce(failing_since, now()) AS since,
         is_active AND $2::bigint > 0
           AND coalesce(failing_since, now()) <= now() - make_interval(secs => $2::bigint / 1000.0) AS pause
       FROM webhook_subscriptions WHERE id = $1 FOR UPDATE)
     UPDATE webhook_subscriptions s SET failing_since = streak.since,
       is_active = s.is_active AND NOT streak.pause,
       paused_at = CASE WHEN streak.pause THEN now() ELSE s.paused_at END,
       paused_reason = CASE WHEN streak.pause
         THEN 'Paused: every delivery attempt failed since '
           || to_char(streak.since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
           || ' (TESSERA_WEBHOOK_PAUSE_AFTER_MS=' || $2::bigint || '); last error: ' || $3
         ELSE s.paused_reason END
     FROM streak WHERE s.id = streak.id
     RETURNING s.is_active`,
    [subscriptionId, pauseAfterMs, last.slice(0, 500)],
  );
  return row ? !row.is_active : true;
}
