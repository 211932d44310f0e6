-- A project's span retention in days (src/tracing/retention.ts): NULL follows the server's
-- TESSERA_SPAN_RETENTION_DAYS, 0 keeps spans for good. Expired spans are found through
-- spans_project_start_time, oldest first.
ALTER TABLE projects ADD COLUMN span_retention_days integer CHECK (span_retention_days >= 0);
