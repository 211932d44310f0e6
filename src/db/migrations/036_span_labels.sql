-- Two indexes of the spans cost their writes more than their reads need (docs/tracing.md, "What a span costs").
--
-- An attribute equality was found through a GIN of every span's whole attributes: a key for each path to a leaf,
-- most of them new in every span (inputs, outputs, parameters, token counts, costs, durations), about 30% of the
-- embedded database's work to load a span. It is now found through `labels` (src/tracing/span-labels.ts): the
-- attributes without `ag.data`, `ag.metrics`, `ag.references` (the `references` column has them, indexed) and
-- strings over 128 characters, written with the span. An equality on anything else is answered from the attributes,
-- without an index. Spans stored before keep their long strings in their labels: a containment that holds in the
-- attributes still holds in them.
ALTER TABLE spans ADD COLUMN labels jsonb;
UPDATE spans SET labels = CASE WHEN jsonb_typeof(attributes -> 'ag') = 'object'
  THEN attributes #- '{ag,data}' #- '{ag,metrics}' #- '{ag,references}' ELSE attributes END;
DROP INDEX spans_attributes;
CREATE INDEX spans_labels ON spans USING gin (labels jsonb_path_ops);

-- Spans arrive about in the order of their start times. Kept newest first, each span went in at the left end of its
-- project's range, where a B-tree splits pages in halves and has no fast path; kept oldest first, it goes in at the
-- right end. A query reads it backwards for the newest first (7% of the embedded database's work to load a span).
DROP INDEX spans_project_start_time;
CREATE INDEX spans_project_start_time ON spans (project_id, start_time);
