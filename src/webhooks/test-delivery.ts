import type { Scope } from "../accounts/scope.ts";
import type { Config } from "../config.ts";
import { json, type Database } from "../db/database.ts";
import { badRequest } from "../errors.ts";
import type { ProjectEvent } from "../events/event.ts";
import { storeEvent } from "../events/store-event.ts";
import { uuidv7 } from "../ids/uuid-v7.ts";
import type { SecretCipher } from "../secrets/cipher.ts";
import type { DeliveryData, DeliveryRow } from "./deliveries.ts";
import { canonicalBody, payloadContext, renderPayload } from "./payload.ts";
import { sendAttempt } from "./send.ts";
import { signRequest } from "./signing.ts";
import { markHealthy } from "./subscription-health.ts";
import { checkSubscription, generateSecret, getSubscription, type SubscriptionInput } from "./subscriptions.ts";

const TESTED = "webhooks.subscriptions.tested";
const DRAFT_ID = "00000000-0000-0000-0000-000000000000";

/** What POST /webhooks/subscriptions/test names: a stored subscription, or one not saved yet (with `id`: an edit). */
export interface TestRequest {
  subscription_id?: string | null;
  subscription?: SubscriptionInput | null;
}

/**
 * Sends `webhooks.subscriptions.tested` to a subscription once, now, and answers with what happened (no retries).
 * The delivery is logged when the subscription is a stored one; a draft's is only returned.
 */
export async function testSubscription(
  db: Database, scope: Scope, cipher: SecretCipher, config: Config, request: TestRequest,
): Promise<DeliveryRow> {
  if ((request.subscription_id ? 1 : 0) + (request.subscription ? 1 : 0) !== 1) {
    throw badRequest("Provide exactly one of subscription_id or subscription");
  }
  const storedId = request.subscription_id ?? request.subscription?.id ?? null;
  const stored = storedId ? await getSubscription(db, scope, storedId) : null;
  const input: SubscriptionInput = request.subscription ?? {
    id: stored!.id, name: stored!.name, tags: stored!.tags, meta: stored!.meta, data: stored!.data,
  };
  if (request.subscription) checkSubscription(input, config, !stored);
  const secret = input.secret || (stored ? cipher.decrypt(stored.encrypted_secret) : null);
  if (!secret && input.data.auth_mode === "authorization") {
    throw badRequest("auth_mode 'authorization' needs a secret: the secret is sent as the Authorization header");
  }
  const now = new Date();
  const eventId = uuidv7();
  const deliveryId = uuidv7();
  const attributes = { subscription_id: stored?.id ?? "draft" };
  const event: ProjectEvent = {
    event_id: eventId, event_type: TESTED, timestamp: now.toISOString(), created_at: now.toISOString(), attributes,
  };
  const context = payloadContext(event, {
    id: stored?.id ?? "draft", name: input.name, tags: input.tags, meta: input.meta,
    created_at: stored?.created_at.toISOString(), updated_at: stored?.updated_at?.toISOString(),
  }, scope.projectId);
  const payload = renderPayload(input.data.payload_fields, context);
  const body = canonicalBody(payload);
  const signed = signRequest({
    // A draft without a secret is signed with a new one, as the reference does: its receiver cannot check it.
    deliveryId, eventId, eventType: TESTED, body, secret: secret ?? generateSecret(),
    authMode: input.data.auth_mode ?? "signature",
    userHeaders: input.data.headers,
  });
  const outcome = await sendAttempt(input.data.url, signed.headers, body, {
    timeoutMs: config.webhooks.timeoutMs, allowPrivate: config.allowPrivateHooks,
  });
  const ok = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
  const data: DeliveryData = { event_type: TESTED, url: input.data.url, headers: signed.logged, payload };
  if (outcome.statusCode !== null) data.response = { status_code: outcome.statusCode, body: outcome.excerpt ?? "" };
  if (outcome.error) data.error = outcome.error;
  const row: DeliveryRow = {
    id: deliveryId, project_id: scope.projectId, subscription_id: stored?.id ?? DRAFT_ID, event_id: eventId,
    event_type: TESTED, redelivery_of: null, status_code: String(outcome.statusCode ?? 0),
    status_message: ok ? "success" : "failed", data, created_at: now, updated_at: now, created_by_id: scope.userId,
    attempts: [{
      attempt: 1, started_at: now.toISOString(), status_code: outcome.statusCode, latency_ms: outcome.latencyMs,
      response: outcome.excerpt, error: outcome.error, retry_in_ms: null,
    }],
  };
  if (!stored) return row;
  await db.transaction(async (tx) => {
    await storeEvent(tx, eventId, scope.projectId, TESTED, attributes, now);
    await tx.query(
      `INSERT INTO webhook_deliveries (id, project_id, subscription_id, event_id, event_type, status_code,
         status_message, data, attempts, created_at, updated_at, created_by_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9::jsonb, $10, $10, $11)`,
      [row.id, row.project_id, row.subscription_id, eventId, TESTED, row.status_code, row.status_message, json(data),
        json(row.attempts), now, scope.userId],
    );
  });
  // A test that gets through ends a failure streak; one that fails starts none (it is not an event's delivery).
  if (ok) await markHealthy(db, stored.id);
  return row;
}
