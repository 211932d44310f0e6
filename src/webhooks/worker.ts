import type { AppContext } from "../context.ts";
import { JobWorker } from "../jobs/worker.ts";
import { secretCipher } from "../secrets/cipher.ts";
import { deliveryHandler } from "./delivery-handler.ts";
import { SubscriberSlots } from "./subscriber-slots.ts";

/**
 * This process's share of webhook deliveries, or null when TESSERA_WEBHOOK_CONCURRENCY is 0, or when it shares
 * PostgreSQL without TESSERA_SECRET_KEY: it could not unseal a subscription's secret, so it leaves the deliveries to
 * the processes that can instead of failing them. Its own worker, so that
 * deliveries never wait behind evaluation batches (nor these behind them). Projects take turns, each within half of
 * the places but at least twice a subscriber's share, so that one subscriber that hangs leaves room for the project's
 * others.
 */
export function webhookWorker(ctx: AppContext, onError: (error: unknown) => void): JobWorker | null {
  const { concurrency, subscriberConcurrency } = ctx.config.webhooks;
  if (concurrency === 0 || (ctx.config.databaseUrl && !ctx.config.secretKey)) return null;
  const slots = new SubscriberSlots(subscriberConcurrency);
  const handler = deliveryHandler(ctx.db, secretCipher(ctx.config), ctx.config, slots);
  return new JobWorker(ctx.db, [handler], {
    concurrency,
    projectLimit: Math.max(Math.ceil(concurrency / 2), 2 * subscriberConcurrency),
    leaseMs: ctx.config.evaluations.leaseMs,
    // Retries and deferred deliveries are found by polling: as often as the first retry is due, at most each second.
    pollMs: Math.min(1_000, ctx.config.webhooks.retryBaseMs), onError,
  });
}
