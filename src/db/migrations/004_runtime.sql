-- Provider keys per project, encrypted with TESSERA_SECRET_KEY (AES-256-GCM); never returned by a read.
CREATE TABLE provider_secrets (
  id uuid PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects (id),
  slug text NOT NULL,
  provider text NOT NULL,
  name text,
  base_url text,
  encrypted_key bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  created_by_id uuid,
  UNIQUE (project_id, slug)
);

-- One row per invocation: the root span's ids, what was asked and answered, and all spans.
CREATE TABLE traces (
  trace_id text NOT NULL,
  project_id uuid NOT NULL REFERENCES projects (id),
  span_id text NOT NULL,
  refs jsonb,
  inputs jsonb,
  outputs jsonb,
  status jsonb NOT NULL,
  latency_ms double precision,
  usage jsonb,
  spans jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, trace_id)
);
