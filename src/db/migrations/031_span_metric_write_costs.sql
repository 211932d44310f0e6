-- A server-run evaluation writes about five spans a testcase (each invocation's root span, its handler's span, the
-- model call's) and a metrics row a scenario, so a check PostgreSQL makes per row is paid hundreds of thousands of
-- times in a large run. As migration 017 did for the traces table these spans replaced, the keys that only repeat
-- what the code already checks go: a span's project (spans are written for the caller's project only, by ingestion
-- and by the runtime, and projects are never deleted) and a metrics row's project (its run is checked to be the
-- caller's, and the run's key remains). On PGlite, COPY of an evaluation's spans cost about 10 µs less a span.
ALTER TABLE spans DROP CONSTRAINT IF EXISTS spans_project_id_fkey;
ALTER TABLE evaluation_metrics DROP CONSTRAINT IF EXISTS evaluation_metrics_project_id_fkey;
