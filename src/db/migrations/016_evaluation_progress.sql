-- How far a server-run evaluation has come, kept as counters: its plan sets `scenarios`, each batch adds
-- what it changed in the same transaction as its results. A client polls progress while a run grows, and
-- counting a 100,000-scenario run's rows on every poll would cost more than the run's own writes. Writes
-- to a run's scenarios or results through the entity routes drop its row: progress is then counted from
-- the rows themselves.

CREATE TABLE evaluation_progress (
  run_id uuid PRIMARY KEY REFERENCES evaluation_runs (id) ON DELETE CASCADE,
  scenarios integer NOT NULL DEFAULT 0,
  succeeded integer NOT NULL DEFAULT 0,
  failed integer NOT NULL DEFAULT 0,
  invoked integer NOT NULL DEFAULT 0,
  reused integer NOT NULL DEFAULT 0,
  failed_cells integer NOT NULL DEFAULT 0
);
