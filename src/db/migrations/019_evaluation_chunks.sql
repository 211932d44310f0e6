-- A server-run evaluation plans its testcases a leaf chunk of the testset revision at a time (content-defined,
-- shared between revisions) and records each chunk here: the range of scenario ids that hold it (ids made in
-- order, in one transaction, by one process), how many scenarios and computed cells it has, and what its results
-- depend on besides its testcases (`signature`: the computed steps' keys and revisions, the repeats). The input
-- step's key names the testset revision, so it differs between the run (`step_key`) and the run holding the rows
-- (`source_step_key`): a linked input result reads with the run's key. A chunk whose computed results all
-- succeeded is `complete` (the run's metrics refresh sorts its results into its chunks and stores each chunk's
-- metrics). A cached run that meets a complete chunk with its own signature stores one row naming the chunk's
-- rows (`source_run_id` is the run that holds them) instead of copies: a re-run after a small commit writes rows
-- for the chunks that changed. Reads of a run's scenarios and results take its own rows and the rows its chunks
-- name (see src/evaluations/run-chunks.ts).

CREATE TABLE evaluation_run_chunks (
  run_id uuid NOT NULL REFERENCES evaluation_runs (id) ON DELETE CASCADE,
  first_id uuid NOT NULL,
  last_id uuid NOT NULL,
  project_id uuid NOT NULL,
  source_run_id uuid NOT NULL,
  signature text NOT NULL,
  chunk text NOT NULL,
  step_key text NOT NULL,
  source_step_key text NOT NULL,
  count integer NOT NULL,
  cells integer NOT NULL,
  complete boolean NOT NULL DEFAULT false,
  -- The metrics of the chunk's results, by step and path, as the run's metrics refresh collected them
  -- (src/evaluations/metric-stats.ts): a run that links the chunk merges them instead of reading its results.
  metrics jsonb,
  PRIMARY KEY (run_id, first_id)
);
CREATE INDEX evaluation_run_chunks_lookup ON evaluation_run_chunks (project_id, signature, chunk) WHERE complete;
CREATE INDEX evaluation_run_chunks_source ON evaluation_run_chunks (source_run_id) WHERE source_run_id <> run_id;
-- A linked row's chunk: the last chunk the run links from that source starting at or before the row's scenario.
CREATE INDEX evaluation_run_chunks_links ON evaluation_run_chunks (run_id, source_run_id, first_id);
