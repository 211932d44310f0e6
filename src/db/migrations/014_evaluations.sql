-- Evaluations, in the reference's model: a run (its steps pin revision ids in `data`), its scenarios
-- (one per testcase or trace), one result per (scenario, step, repeat), and metrics per run, per
-- scenario or per time bucket. Deleting a run deletes everything under it.

CREATE TABLE evaluation_runs (
  id uuid PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects (id),
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
CREATE INDEX evaluation_runs_project ON evaluation_runs (project_id, id);

CREATE TABLE evaluation_scenarios (
  id uuid PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects (id),
  run_id uuid NOT NULL REFERENCES evaluation_runs (id) ON DELETE CASCADE,
  version text NOT NULL DEFAULT '2025-07-14',
  flags jsonb NOT NULL DEFAULT '{}',
  tags jsonb,
  meta jsonb,
  status text NOT NULL DEFAULT 'pending',
  "interval" integer,
  "timestamp" timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz,
  created_by_id uuid,
  updated_by_id uuid
);
CREATE INDEX evaluation_scenarios_run ON evaluation_scenarios (run_id, id);

CREATE TABLE evaluation_results (
  id uuid PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects (id),
  run_id uuid NOT NULL REFERENCES evaluation_runs (id) ON DELETE CASCADE,
  scenario_id uuid NOT NULL REFERENCES evaluation_scenarios (id) ON DELETE CASCADE,
  step_key text NOT NULL,
  repeat_idx integer NOT NULL DEFAULT 0,
  version text NOT NULL DEFAULT '2025-07-14',
  -- What determines the result (the step's revision and what it was given): equal hashes, equal results.
  hash_id uuid,
  trace_id text,
  testcase_id uuid,
  error jsonb,
  status text NOT NULL DEFAULT 'pending',
  "interval" integer,
  "timestamp" timestamptz,
  flags jsonb NOT NULL DEFAULT '{}',
  tags jsonb,
  meta jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz,
  created_by_id uuid,
  updated_by_id uuid,
  UNIQUE (scenario_id, step_key, repeat_idx)
);
CREATE INDEX evaluation_results_run ON evaluation_results (run_id, step_key, id);
CREATE INDEX evaluation_results_hash ON evaluation_results (project_id, hash_id) WHERE hash_id IS NOT NULL;

CREATE TABLE evaluation_metrics (
  id uuid PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects (id),
  run_id uuid NOT NULL REFERENCES evaluation_runs (id) ON DELETE CASCADE,
  scenario_id uuid REFERENCES evaluation_scenarios (id) ON DELETE CASCADE,
  version text NOT NULL DEFAULT '2025-07-14',
  status text NOT NULL DEFAULT 'pending',
  data jsonb,
  "interval" integer,
  "timestamp" timestamptz,
  flags jsonb NOT NULL DEFAULT '{}',
  tags jsonb,
  meta jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz,
  created_by_id uuid,
  updated_by_id uuid,
  -- One row per slot: the run as a whole, one scenario, or one time bucket.
  UNIQUE NULLS NOT DISTINCT (run_id, scenario_id, "timestamp")
);
