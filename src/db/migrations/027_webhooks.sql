-- Webhook subscriptions of a project, and the delivery of each event to each of them (src/webhooks/).
CREATE TABLE webhook_subscriptions (
  id uuid PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name text,
  description text,
  tags jsonb,
  meta jsonb,
  -- {url, headers, payload_fields, auth_mode, event_types} as the client sent them.
  data jsonb NOT NULL,
  -- NULL: every event type; else the event types it is sent.
  event_types text[],
  is_active boolean NOT NULL DEFAULT true,
  -- Sealed with the project's secret cipher (src/secrets/cipher.ts); never returned by a query.
  encrypted_secret bytea NOT NULL,
  -- Since when every attempt has failed (NULL after a success), and why the subscription was paused, if it was.
  failing_since timestamptz,
  paused_at timestamptz,
  paused_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz,
  created_by_id uuid,
  updated_by_id uuid
);

CREATE INDEX webhook_subscriptions_project ON webhook_subscriptions (project_id, id);

-- One row per (event, subscription) sent, and per redelivery; `attempts` logs every try. Its id is the
-- Idempotency-Key every attempt carries.
CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  subscription_id uuid NOT NULL REFERENCES webhook_subscriptions (id) ON DELETE CASCADE,
  event_id uuid NOT NULL,
  event_type text NOT NULL,
  -- The delivery this one sends again (POST /webhooks/deliveries/{id}/redeliver).
  redelivery_of uuid,
  status_code text NOT NULL DEFAULT 'pending',
  status_message text NOT NULL DEFAULT 'pending',
  data jsonb,
  attempts jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz,
  created_by_id uuid
);

CREATE INDEX webhook_deliveries_subscription ON webhook_deliveries (subscription_id, id);
CREATE INDEX webhook_deliveries_project ON webhook_deliveries (project_id, id);
