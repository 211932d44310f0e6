import type { Config } from "../config.ts";
import type { Database } from "../db/database.ts";
import type { ProjectEvent } from "../events/event.ts";
import type { Job } from "../jobs/queue.ts";
import type { JobHandler } from "../jobs/worker.ts";
import type { SecretCipher } from "../secrets/cipher.ts";
import { recordAttempt, settleDelivery, type AttemptRecord, type DeliveryData } from "./deliveries.ts";
import { DELIVERY_QUEUE, type DeliveryJob } from "./fan-out.ts";
import { canonicalBody, payloadContext, renderPayload } from "./payload.ts";
import { isRetryableStatus, nextWait } from "./retry-policy.ts";
import { sendAttempt, type AttemptOutcome } from "./send.ts";
import { signRequest } from "./signing.ts";
import type { SubscriberSlots } from "./subscriber-slots.ts";
import { markFailing, markHealthy } from "./subscription-health.ts";
import type { SubscriptionData } from "./subscriptions.ts";

interface DeliveryWork {
  id: string;
  project_id: string;
  subscription_id: string;
  event_id: string;
  event_type: string;
  created_at: Date;
  attempts: number;
  data: SubscriptionData;
  is_active: boolean;
  failing: boolean;
  encrypted_secret: Uint8Array;
  name: string | null;
  tags: Record<string, unknown> | null;
  meta: Record<string, unknown> | null;
  sub_created_at: Date;
  sub_updated_at: Date | null;
  attributes: Record<string, unknown> | null;
  event_created_at: Date | null;
}

const LOAD = `
  SELECT d.id, d.project_id, d.subscription_id, d.event_id, d.event_type, d.created_at,
    jsonb_array_length(d.attempts)::int AS attempts, s.data, s.is_active, s.failing_since IS NOT NULL AS failing,
    s.encrypted_secret, s.name, s.tags, s.meta,
    s.created_at AS sub_created_at, s.updated_at AS sub_updated_at, e.attributes, e.created_at AS event_created_at
  FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
    LEFT JOIN events e ON e.id = d.event_id
  WHERE d.id = $1 AND d.status_message IN ('pending', 'retrying')`;

/** An error the job worker reads as "try again in `retryAfterMs`" (or never, when null). */
const retryIn = (message: string, retryAfterMs: number | null) => Object.assign(new Error(message), { retryAfterMs });

/** A wait for a subscriber's turn: short, and spread so deferred deliveries do not come back together. */
const turnWait = () => 200 + Math.round(Math.random() * 300);

/**
 * Sends delivery jobs: one attempt per claim, logged; a 5xx, 429 (after its Retry-After), 408, timeout or
 * connection failure is tried again with backoff until the retry window closes; any other answer is final. A
 * subscription whose every attempt fails for TESSERA_WEBHOOK_PAUSE_AFTER_MS is paused. A delivery whose subscription
 * is stopped is cancelled; one whose subscription has no free place in this process waits for its turn.
 */
export function deliveryHandler(
  db: Database, cipher: SecretCipher | null, config: Config, slots: SubscriberSlots,
): JobHandler<DeliveryJob> {
  const settings = config.webhooks;
  // A delivery whose lease ran out while this process was still sending it (a stalled event loop) may be claimed
  // again here: it waits for the first send to settle instead of going out twice.
  const sending = new Set<string>();
  return {
    queue: DELIVERY_QUEUE,
    async run(job: Job<DeliveryJob>, signal: AbortSignal) {
      const [work] = await db.query<DeliveryWork>(LOAD, [job.payload.delivery_id]);
      if (!work) return; // deleted with its subscription, or settled already
      if (!work.is_active) return settleDelivery(db, work.id, "cancelled: the subscription is stopped", null);
      if (!cipher) return settleDelivery(db, work.id, "failed: TESSERA_SECRET_KEY is not set", null);
      if (!work.attributes || !work.event_created_at) {
        return settleDelivery(db, work.id, "failed: the event is gone", null);
      }
      if (sending.has(work.id)) throw retryIn("this process is sending it already", turnWait());
      if (!slots.take(work.subscription_id)) throw retryIn("waiting for the subscriber's turn", turnWait());
      sending.add(work.id);
      try {
        await attempt(work, signal);
      } finally {
        sending.delete(work.id);
        slots.give(work.subscription_id);
      }
    },
  };

  async function attempt(work: DeliveryWork, signal: AbortSignal): Promise<void> {
    const at = work.event_created_at!.toISOString();
    const event = {
      event_id: work.event_id, event_type: work.event_type, timestamp: at, created_at: at, attributes: work.attributes,
    } as ProjectEvent;
    const context = payloadContext(event, {
      id: work.subscription_id, name: work.name, tags: work.tags, meta: work.meta,
      created_at: work.sub_created_at.toISOString(), updated_at: work.sub_updated_at?.toISOString() ?? null,
    }, work.project_id);
    const payload = renderPayload(work.data.payload_fields, context);
    const body = canonicalBody(payload);
    const base: DeliveryData = { event_type: work.event_type, url: work.data.url, payload };
    const size = Buffer.byteLength(body);
    if (size > settings.maxPayloadBytes) {
      const max = settings.maxPayloadBytes;
      const error = `The payload is ${size} bytes, more than TESSERA_WEBHOOK_MAX_PAYLOAD_BYTES (${max})`;
      await settleDelivery(db, work.id, "failed", { ...base, payload: undefined, error });
      throw retryIn(error, null);
    }
    const signed = signRequest({
      deliveryId: work.id, eventId: work.event_id, eventType: work.event_type, body,
      secret: cipher!.decrypt(work.encrypted_secret), authMode: work.data.auth_mode ?? "signature",
      userHeaders: work.data.headers,
    });
    const startedAt = new Date();
    const outcome = await sendAttempt(work.data.url, signed.headers, body, {
      timeoutMs: settings.timeoutMs, allowPrivate: config.allowPrivateHooks, signal,
    });
    if (signal.aborted) throw signal.reason; // the worker stops or lost the lease: the attempt did not count
    const number = work.attempts + 1;
    const data: DeliveryData = { ...base, headers: signed.logged, ...answered(outcome) };
    const log = (retry: number | null): AttemptRecord => ({
      attempt: number, started_at: startedAt.toISOString(), status_code: outcome.statusCode,
      latency_ms: outcome.latencyMs, response: outcome.excerpt, error: outcome.error, retry_in_ms: retry,
    });
    const code = String(outcome.statusCode ?? 0);
    if (outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300) {
      await recordAttempt(db, work.id, { code, message: "success" }, data, log(null));
      if (work.failing) await markHealthy(db, work.subscription_id);
      return;
    }
    const paused = await markFailing(db, work.subscription_id, settings.pauseAfterMs, outcome);
    const retryable = outcome.statusCode === null ? !outcome.refused : isRetryableStatus(outcome.statusCode);
    const wait = retryable && !paused
      ? nextWait({
        attempt: number, baseMs: settings.retryBaseMs, retryAfterMs: outcome.retryAfterMs,
        createdAt: work.created_at, windowMs: settings.retryWindowMs,
      })
      : null;
    await recordAttempt(db, work.id, { code, message: wait === null ? "failed" : "retrying" }, data, log(wait));
    throw retryIn(outcome.error ?? `the subscriber answered ${outcome.statusCode}`, wait);
  }
}

function answered(outcome: AttemptOutcome): Partial<DeliveryData> {
  const part: Partial<DeliveryData> = {};
  if (outcome.statusCode !== null) part.response = { status_code: outcome.statusCode, body: outcome.excerpt ?? "" };
  if (outcome.error) part.error = outcome.error;
  return part;
}
