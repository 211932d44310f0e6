import type { FastifyInstance } from "fastify";
import type { Static } from "typebox";
import type { AppContext } from "../context.ts";
import { HttpError } from "../errors.ts";
import { documentationOnly } from "../http/openapi.ts";
import { IdParam } from "../schema-parts.ts";
import { secretCipher } from "../secrets/cipher.ts";
import { createDelivery, deliveryRecord, getDelivery, queryDeliveries, redeliver } from "./deliveries.ts";
import {
  DeliveriesAnswer, DeliveryAnswer, DeliveryCreateBody, DeliveryQueryBody, SubscriptionAnswer, SubscriptionCreateBody,
  SubscriptionEditBody, SubscriptionQueryBody, SubscriptionsAnswer, SubscriptionTestBody,
} from "./schemas.ts";
import {
  createSubscription, deleteSubscription, editSubscription, getSubscription, querySubscriptions, setActive,
  subscriptionRecord, type SubscriptionInput, type SubscriptionRow,
} from "./subscriptions.ts";
import { testSubscription } from "./test-delivery.ts";

const SubscriptionParam = IdParam("subscription_id");
const DeliveryParam = IdParam("delivery_id");
const answers = (schema: object) => documentationOnly({ response: { 200: schema } });
const subscriptionId = (params: unknown) => (params as { subscription_id: string }).subscription_id;
const deliveryId = (params: unknown) => (params as { delivery_id: string }).delivery_id;

/** The reference's webhooks API: subscriptions (CRUD, query, start/stop, test) and the delivery log with redeliver. */
export async function webhookRoutes(app: FastifyInstance, ctx: AppContext) {
  const cipher = secretCipher(ctx.config);
  const sealing = () => {
    if (!cipher) throw new HttpError(409, "Webhook secrets need TESSERA_SECRET_KEY to be set on the server");
    return cipher;
  };
  const tags = ["Webhooks"];
  const withSecret = (row: SubscriptionRow) =>
    ({ count: 1, subscription: subscriptionRecord(row, sealing().decrypt(row.encrypted_secret)) });

  app.post("/webhooks/subscriptions/", {
    schema: { tags, summary: "Create a subscription (a secret generated if none given)", body: SubscriptionCreateBody },
    config: answers(SubscriptionAnswer),
  }, async (req) => {
    const body = req.body as Static<typeof SubscriptionCreateBody>;
    const input = body.subscription as SubscriptionInput;
    const { row, secret } = await createSubscription(ctx.db, req.scope, sealing(), ctx.config, input);
    return { count: 1, subscription: subscriptionRecord(row, secret) };
  });
  app.post("/webhooks/subscriptions/test", {
    schema: {
      tags, summary: "Send webhooks.subscriptions.tested to a subscription or a draft, once, now",
      body: SubscriptionTestBody,
    },
    config: answers(DeliveryAnswer),
  }, async (req) => {
    const body = req.body as Static<typeof SubscriptionTestBody>;
    const delivery = await testSubscription(ctx.db, req.scope, sealing(), ctx.config, body as never);
    return { count: 1, delivery: deliveryRecord(delivery) };
  });
  app.post("/webhooks/subscriptions/query", {
    schema: {
      tags, summary: "Query subscriptions by name, description, tags, meta; windowed (secrets never shown)",
      body: SubscriptionQueryBody,
    },
    config: answers(SubscriptionsAnswer),
  }, async (req) => {
    const body = req.body as Static<typeof SubscriptionQueryBody>;
    const rows = await querySubscriptions(ctx.db, req.scope, body.subscription as never, body.windowing as never);
    return { count: rows.length, subscriptions: rows.map((row) => subscriptionRecord(row)) };
  });
  app.get("/webhooks/subscriptions/:subscription_id", {
    schema: { tags, summary: "Fetch a subscription, with its secret", params: SubscriptionParam },
    config: answers(SubscriptionAnswer),
  }, async (req) => withSecret(await getSubscription(ctx.db, req.scope, subscriptionId(req.params))));
  app.put("/webhooks/subscriptions/:subscription_id", {
    schema: {
      tags, summary: "Replace a subscription (the secret only when given)", params: SubscriptionParam,
      body: SubscriptionEditBody,
    },
    config: answers(SubscriptionAnswer),
  }, async (req) => {
    const body = req.body as Static<typeof SubscriptionEditBody>;
    const id = subscriptionId(req.params);
    const input = body.subscription as SubscriptionInput;
    const { row, secret } = await editSubscription(ctx.db, req.scope, sealing(), ctx.config, id, input);
    return { count: 1, subscription: subscriptionRecord(row, secret) };
  });
  app.delete("/webhooks/subscriptions/:subscription_id", {
    schema: { tags, summary: "Delete a subscription and its delivery log", params: SubscriptionParam },
    config: documentationOnly({ response: { 204: { type: "null", description: "Deleted" } } }),
  }, async (req, reply) => {
    await deleteSubscription(ctx.db, req.scope, subscriptionId(req.params));
    return reply.code(204).send();
  });
  for (const [action, active] of [["start", true], ["stop", false]] as const) {
    app.post(`/webhooks/subscriptions/:subscription_id/${action}`, {
      schema: {
        tags, params: SubscriptionParam,
        summary: active ? "Start a subscription (clears a pause)" : "Stop a subscription (cancels pending deliveries)",
      },
      config: answers(SubscriptionAnswer),
    }, async (req) => withSecret(await setActive(ctx.db, req.scope, subscriptionId(req.params), active)));
  }

  app.post("/webhooks/deliveries", {
    schema: { tags, summary: "Record a delivery made elsewhere (nothing is sent)", body: DeliveryCreateBody },
    config: answers(DeliveryAnswer),
  }, async (req) => {
    const body = req.body as Static<typeof DeliveryCreateBody>;
    return { count: 1, delivery: deliveryRecord(await createDelivery(ctx.db, req.scope, body.delivery as never)) };
  });
  app.post("/webhooks/deliveries/query", {
    schema: { tags, summary: "Query the delivery log (every attempt of each delivery)", body: DeliveryQueryBody },
    config: answers(DeliveriesAnswer),
  }, async (req) => {
    const body = req.body as Static<typeof DeliveryQueryBody>;
    const rows = await queryDeliveries(ctx.db, req.scope, body.delivery as never, body.windowing as never);
    return { count: rows.length, deliveries: rows.map(deliveryRecord) };
  });
  app.get("/webhooks/deliveries/:delivery_id", {
    schema: { tags, summary: "Fetch a delivery with its attempts", params: DeliveryParam },
    config: answers(DeliveryAnswer),
  }, async (req) => {
    const delivery = await getDelivery(ctx.db, req.scope, deliveryId(req.params));
    return { count: 1, delivery: deliveryRecord(delivery) };
  });
  app.post("/webhooks/deliveries/:delivery_id/redeliver", {
    schema: { tags, summary: "Send a delivery's event again, as a new delivery", params: DeliveryParam },
    config: answers(DeliveryAnswer),
  }, async (req) => {
    const delivery = await redeliver(ctx.db, req.scope, deliveryId(req.params));
    return { count: 1, delivery: deliveryRecord(delivery) };
  });
}
