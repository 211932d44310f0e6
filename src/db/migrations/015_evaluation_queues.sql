-- Annotation queues, in the reference's model: a queue belongs to a run and says which of its
-- scenarios go to which users (`data.user_ids`, one list per repeat), in sequential batches
-- (`flags.is_sequential`, `data.batch_size`, `data.batch_offset`) or spread by scenario id.
-- Deleting the run deletes its queues.

CREATE TABLE evaluation_queues (
  id uuid PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects (id),
  run_id uuid NOT NULL REFERENCES evaluation_runs (id) ON DELETE CASCADE,
  version text NOT NULL DEFAULT '2025-07-14',
  name text,
  description text,
  flags jsonb NOT NULL DEFAULT '{}',
  tags jsonb,
  meta jsonb,
  status text NOT NULL DEFAULT 'pending',
  data jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz,
  deleted_at timestamptz,
  created_by_id uuid,
  updated_by_id uuid,
  deleted_by_id uuid
);
CREATE INDEX evaluation_queues_project ON evaluation_queues (project_id, id);
CREATE INDEX evaluation_queues_run ON evaluation_queues (run_id, id);
