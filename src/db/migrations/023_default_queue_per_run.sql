-- A run has at most one default queue (the reference's ux_evaluation_queues_default_per_run). Where a run had more,
-- the oldest stays its default and the others become ordinary queues.
UPDATE evaluation_queues q SET flags = q.flags || '{"is_default": false}'
WHERE q.flags @> '{"is_default": true}'
  AND EXISTS (
    SELECT 1 FROM evaluation_queues o
    WHERE o.run_id = q.run_id AND o.flags @> '{"is_default": true}' AND o.id < q.id
  );

CREATE UNIQUE INDEX evaluation_queues_default_per_run ON evaluation_queues (run_id)
  WHERE flags @> '{"is_default": true}';
