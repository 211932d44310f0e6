-- A batch run stores a metrics row a scenario (migration 029), and each held the scenario's statistics in full:
-- for one value, its sum, mean, min, max, range and nine percentiles, all that value, 0.8-1.9 KB of jsonb a row, as
-- large as the scenario's spans. A batch now stores what the statistics are computed from instead (each metric's
-- type, count, numbers and frequencies: src/evaluations/metrics/metric-stats.ts `StepPartials`) in `partials`, with
-- `data` NULL; a row is read with `data` computed from them. A row whose `data` is set (a client's, a refresh's)
-- is read as it is.
ALTER TABLE evaluation_metrics ADD COLUMN partials json;
