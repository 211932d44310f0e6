-- Durable work items, claimed by any server process with FOR UPDATE SKIP LOCKED and held under a lease.
-- A job whose lease runs out (its process died) is claimable again; `attempts` counts claims.
CREATE TABLE jobs (
  id uuid PRIMARY KEY,
  queue text NOT NULL,
  project_id uuid REFERENCES projects (id),
  -- At most one job per (queue, key): enqueueing the same key again is a no-op.
  key text,
  payload jsonb NOT NULL,
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'failed', 'cancelled')),
  attempts integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL DEFAULT 5,
  run_after timestamptz NOT NULL DEFAULT now(),
  lease_token uuid,
  lease_until timestamptz,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX jobs_queue_key ON jobs (queue, key) WHERE key IS NOT NULL;
-- What a claim scans: queued jobs that are due, and running jobs whose lease has run out.
CREATE INDEX jobs_claimable ON jobs (queue, run_after) WHERE status = 'queued';
CREATE INDEX jobs_leased ON jobs (queue, lease_until) WHERE status = 'running';
