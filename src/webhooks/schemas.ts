import { Type } from "typebox";
import { SUBSCRIBABLE_EVENT_TYPES } from "../events/event.ts";
import { FreeObject, Nullable, Uuid, WindowingSchema } from "../schema-parts.ts";

// Listed fields: anything else is ignored and named in x-tessera-ignored-fields (schema-parts.ts).
const Known = { additionalProperties: false } as const;
const Open = { additionalProperties: true } as const;

const EventTypeSchema = Type.Union(SUBSCRIBABLE_EVENT_TYPES.map((t) => Type.Literal(t)));
const Headers = Type.Record(Type.String({ maxLength: 256 }), Type.String({ maxLength: 8192 }), {
  maxProperties: 64,
});

/** A subscription's `data`: where, how and what it is sent. */
export const SubscriptionDataSchema = Type.Object({
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    description: "https (http and private addresses only when TESSERA_ALLOW_PRIVATE_HOOKS=true)",
  }),
  headers: Nullable(Headers),
  payload_fields: Nullable(Type.Unknown({
    description: "A JSON template whose `$.`-paths and `/`-pointers select from {event, subscription, scope}; " +
      "absent: all of it",
  })),
  auth_mode: Nullable(Type.Union([Type.Literal("signature"), Type.Literal("authorization")])),
  event_types: Nullable(Type.Array(EventTypeSchema, {
    maxItems: SUBSCRIBABLE_EVENT_TYPES.length,
    description: "Absent: every event. Emitted: webhooks.subscriptions.tested (to the tested subscription only), " +
      "testsets|workflows|environments.revisions.committed; the reference's read events are accepted and never sent",
  })),
}, Known);

const Flags = Type.Object({ is_active: Nullable(Type.Boolean()) }, Known);
const header = {
  name: Nullable(Type.String({ maxLength: 256 })),
  description: Nullable(Type.String({ maxLength: 4096 })),
  tags: Nullable(FreeObject),
  meta: Nullable(FreeObject),
};
const Secret = Nullable(Type.String({ minLength: 1, maxLength: 4096 }));

/** The `subscription` of a create (and of a test of a draft). */
export const SubscriptionCreateSchema = Type.Object({
  ...header, data: SubscriptionDataSchema, flags: Nullable(Flags), secret: Secret,
}, Known);
/** The `subscription` of an edit (a full replacement; a secret only when it changes). */
export const SubscriptionEditSchema = Type.Object({
  id: Nullable(Uuid), ...header, data: SubscriptionDataSchema, flags: Nullable(Flags), secret: Secret,
}, Known);

export const SubscriptionCreateBody = Type.Object({ subscription: SubscriptionCreateSchema }, Known);
export const SubscriptionEditBody = Type.Object({ subscription: SubscriptionEditSchema }, Known);
export const SubscriptionTestBody = Type.Object({
  subscription_id: Nullable(Uuid),
  subscription: Nullable(SubscriptionEditSchema),
}, Known);
export const SubscriptionQueryBody = Type.Object({
  subscription: Nullable(Type.Object({ ...header }, Known)),
  include_archived: Nullable(Type.Boolean()),
  windowing: Nullable(WindowingSchema),
}, Known);

const Status = Type.Object({
  code: Type.String(), message: Type.String(), timestamp: Type.Optional(Type.String()),
}, Open);

const SubscriptionRecord = Type.Object({
  id: Uuid,
  name: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  tags: Type.Optional(FreeObject),
  meta: Type.Optional(FreeObject),
  created_at: Type.String(),
  updated_at: Type.Optional(Type.String()),
  created_by_id: Type.Optional(Type.String()),
  updated_by_id: Type.Optional(Type.String()),
  data: FreeObject,
  flags: Type.Object({ is_active: Type.Boolean() }, Open),
  status: Type.Optional(Type.Object({
    code: Type.Union([Type.Literal("paused"), Type.Literal("failing")]),
    message: Type.String(),
    timestamp: Type.Optional(Type.String()),
  }, {
    description: "Absent while deliveries succeed; `failing` since the first failed attempt of a streak, " +
      "`paused` once a streak lasted TESSERA_WEBHOOK_PAUSE_AFTER_MS",
  })),
  secret: Type.Optional(Type.String({ description: "On create, fetch and edit only; never in a query's answer" })),
}, Open);

export const SubscriptionAnswer = Type.Object({
  count: Type.Integer(), subscription: Type.Optional(SubscriptionRecord),
});
export const SubscriptionsAnswer = Type.Object({
  count: Type.Integer(), subscriptions: Type.Array(SubscriptionRecord),
});

const Attempt = Type.Object({
  attempt: Type.Integer(),
  started_at: Type.String(),
  status_code: Type.Union([Type.Integer(), Type.Null()]),
  latency_ms: Type.Integer(),
  response: Type.Union([Type.String(), Type.Null()], { description: "The first 2,000 characters of the answer" }),
  error: Type.Union([Type.String(), Type.Null()]),
  retry_in_ms: Type.Union([Type.Integer(), Type.Null()], { description: "When the next attempt was due, if one was" }),
}, Open);

const DeliveryDataSchema = Type.Object({
  event_type: Nullable(Type.String()),
  url: Nullable(Type.String({ maxLength: 2048 })),
  headers: Nullable(Type.Record(Type.String(), Type.String())),
  payload: Nullable(Type.Unknown()),
  response: Nullable(Type.Object({
    status_code: Nullable(Type.Integer()), body: Nullable(Type.String()),
  }, Known)),
  error: Nullable(Type.String()),
}, Known);

const DeliveryRecord = Type.Object({
  id: Uuid,
  created_at: Type.String(),
  updated_at: Type.Optional(Type.String()),
  created_by_id: Type.Optional(Type.String()),
  status: Status,
  data: Type.Optional(FreeObject),
  subscription_id: Uuid,
  event_id: Uuid,
  redelivery_of: Type.Optional(Uuid),
  attempts: Type.Array(Attempt),
}, Open);

export const DeliveryAnswer = Type.Object({ count: Type.Integer(), delivery: Type.Optional(DeliveryRecord) });
export const DeliveriesAnswer = Type.Object({ count: Type.Integer(), deliveries: Type.Array(DeliveryRecord) });

export const DeliveryCreateBody = Type.Object({
  delivery: Type.Object({
    id: Nullable(Uuid),
    status: Type.Object({
      code: Nullable(Type.String({ maxLength: 64 })), message: Nullable(Type.String({ maxLength: 256 })),
    }, Known),
    data: Nullable(DeliveryDataSchema),
    subscription_id: Uuid,
    event_id: Uuid,
  }, Known),
}, Known);

export const DeliveryQueryBody = Type.Object({
  delivery: Nullable(Type.Object({
    status: Nullable(Type.Object({ code: Nullable(Type.String()), message: Nullable(Type.String()) }, Known)),
    subscription_id: Nullable(Uuid),
    event_id: Nullable(Uuid),
  }, Known)),
  include_archived: Nullable(Type.Boolean()),
  windowing: Nullable(WindowingSchema),
}, Known);
