-- An attribute equality (`is` in a span filtering, src/tracing/query/filtering.ts) is a containment of the
-- attributes (`attributes @> '{"ag": {"meta": {"customer": "c-42"}}}'`). Without an index the planner tests it on
-- every span of the window (or of the table); with this one it reads the spans that hold the value and sorts them
-- (docs/tracing.md has the plans and timings). jsonb_path_ops keeps one hash a path to a leaf and serves only `@>`,
-- which is all the filtering asks of it. For a value most spans hold, PostgreSQL's estimate from the column's
-- statistics keeps the time index instead.
CREATE INDEX spans_attributes ON spans USING gin (attributes jsonb_path_ops);
