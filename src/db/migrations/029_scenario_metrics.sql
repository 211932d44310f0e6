-- A batch run stores a metrics row for each of its scenarios (variational metrics) beside its global row, so a run
-- has as many metric rows as scenarios: a page of them is read in id order from this index, as scenarios are.
CREATE INDEX evaluation_metrics_run ON evaluation_metrics (run_id, id);
