-- What each batch of a server-run evaluation adds to its run's metrics, stored with its results: the run's end merges
-- these partials instead of reading back every result and its trace (evaluations/metrics.ts). Keyed by the batch's
-- first scenario, so a batch run twice (its lease ran out) stores once. Clients' writes to the run delete them.
CREATE TABLE evaluation_batch_metrics (
  run_id uuid NOT NULL REFERENCES evaluation_runs (id) ON DELETE CASCADE,
  first_scenario_id uuid NOT NULL,
  cells integer NOT NULL,
  succeeded integer NOT NULL,
  metrics json NOT NULL,
  PRIMARY KEY (run_id, first_scenario_id)
);
