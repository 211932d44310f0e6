-- One trace model: hosted invocations are written as spans (src/tracing/invocation-spans.ts), so the rows of the
-- per-invocation traces table move into the spans table in the same shape, and `traces` becomes a view of root
-- spans that reads as the table did (the evaluation queries join it by project and hex trace id).
-- A row becomes its root span (inputs, outputs, parameters, references, status, duration, tokens); each span it
-- recorded becomes a child span, its attributes mapped as the runtime's are now, repeated values put back
-- (`same`: `row.<column>` or `<index>.<attribute>`, see the packing of migration 020's era). Costs are not
-- computed for moved rows: the price list lives in the code, not here.
CREATE TABLE traces_moving AS
SELECT t.project_id, t.trace_id, t.span_id, t.refs::jsonb AS refs, t.inputs::jsonb AS inputs,
  t.outputs::jsonb AS outputs, t.status::jsonb AS status, t.latency_ms, t.usage::jsonb AS usage, t.created_at,
  e.elem, e.idx,
  coalesce(e.elem -> 'attributes', '{}')::jsonb || coalesce((
    SELECT jsonb_object_agg(s.k, CASE s.v
      WHEN 'row.inputs' THEN t.inputs::jsonb WHEN 'row.outputs' THEN t.outputs::jsonb WHEN 'row.usage' THEN t.usage::jsonb
      ELSE (t.spans -> (split_part(s.v, '.', 1)::int) -> 'attributes' -> substr(s.v, strpos(s.v, '.') + 1))::jsonb
    END)
    FROM json_each_text(CASE WHEN json_typeof(e.elem -> 'same') = 'object' THEN e.elem -> 'same' END) AS s (k, v)
  ), '{}') AS a
FROM traces t
LEFT JOIN LATERAL json_array_elements(CASE WHEN json_typeof(t.spans) = 'array' THEN t.spans ELSE '[]' END)
  WITH ORDINALITY AS e (elem, idx) ON true
WHERE t.trace_id ~ '^[0-9a-f]{32}$' AND t.span_id ~ '^[0-9a-f]{16}$';

-- Root spans: one a row, with the recorded root span's own attributes (parameters, uri) when it has one.
INSERT INTO spans (project_id, trace_id, span_id, parent_id, trace_type, span_type, span_kind, span_name, start_time,
  end_time, status_code, status_message, attributes, "references", created_at)
SELECT DISTINCT ON (m.project_id, m.trace_id) m.project_id, m.trace_id::uuid, (m.span_id || m.span_id)::uuid, NULL,
  'invocation', 'workflow', 'SPAN_KIND_SERVER', coalesce(root.elem ->> 'name', 'invocation'),
  m.created_at - make_interval(secs => coalesce(m.latency_ms, 0) / 1000), m.created_at,
  CASE WHEN coalesce(m.status ->> 'code', '200')::numeric >= 400 THEN 'STATUS_CODE_ERROR' ELSE 'STATUS_CODE_OK' END,
  CASE WHEN coalesce(m.status ->> 'code', '200')::numeric >= 400 THEN m.status ->> 'message' END,
  jsonb_build_object('ag', jsonb_build_object(
    'type', '{"trace": "invocation", "span": "workflow"}'::jsonb,
    'data', CASE WHEN m.inputs IS NULL OR jsonb_typeof(m.inputs) <> 'object' THEN '{}'
        ELSE jsonb_build_object('inputs', m.inputs) END
      || CASE WHEN m.outputs IS NULL OR m.outputs = 'null' THEN '{}' ELSE jsonb_build_object('outputs', m.outputs) END
      || CASE WHEN jsonb_typeof(root.a -> 'parameters') = 'object' THEN jsonb_build_object('parameters', root.a -> 'parameters')
        ELSE '{}' END
      || CASE WHEN coalesce(root.a, '{}') - ARRAY['inputs', 'outputs', 'parameters', 'usage'] = '{}' THEN '{}'
        ELSE jsonb_build_object('internals', root.a - ARRAY['inputs', 'outputs', 'parameters', 'usage']) END,
    'metrics', jsonb_build_object(
      'duration', CASE WHEN m.latency_ms IS NULL THEN '{}' ELSE jsonb_build_object('cumulative', m.latency_ms) END,
      'errors', '{}'::jsonb, 'costs', '{}'::jsonb,
      'tokens', CASE WHEN jsonb_typeof(m.usage) = 'object' THEN jsonb_build_object('cumulative', jsonb_build_object(
        'prompt', coalesce(m.usage -> 'prompt_tokens', '0'), 'completion', coalesce(m.usage -> 'completion_tokens', '0'),
        'total', coalesce(m.usage -> 'total_tokens', '0'))) ELSE '{}' END),
    'meta', jsonb_build_object('status', m.status)
  ) || CASE WHEN jsonb_typeof(m.refs) = 'object' AND m.refs <> '{}' THEN jsonb_build_object('references', (
      SELECT jsonb_object_agg(r.k, jsonb_strip_nulls(jsonb_build_object(
        'id', r.v ->> 'id', 'slug', r.v ->> 'slug', 'version', r.v ->> 'version')))
      FROM jsonb_each(m.refs) AS r (k, v) WHERE jsonb_typeof(r.v) = 'object')) ELSE '{}' END),
  (SELECT jsonb_agg(jsonb_strip_nulls(jsonb_build_object('id', r.v ->> 'id', 'slug', r.v ->> 'slug',
      'version', r.v ->> 'version', 'attributes', jsonb_build_object('key', r.k))))
    FROM jsonb_each(CASE WHEN jsonb_typeof(m.refs) = 'object' THEN m.refs ELSE '{}' END) AS r (k, v)
    WHERE jsonb_typeof(r.v) = 'object' AND coalesce(r.v ->> 'id', '') ~* '^[0-9a-f-]{32,36}$'),
  m.created_at
FROM traces_moving m
LEFT JOIN traces_moving root ON root.project_id = m.project_id AND root.trace_id = m.trace_id
  AND root.elem ->> 'span_id' = root.span_id
ORDER BY m.project_id, m.trace_id
ON CONFLICT DO NOTHING;

-- The spans each row recorded under its root.
INSERT INTO spans (project_id, trace_id, span_id, parent_id, trace_type, span_type, span_kind, span_name, start_time,
  end_time, status_code, status_message, attributes, created_at)
SELECT m.project_id, m.trace_id::uuid, ((m.elem ->> 'span_id') || (m.elem ->> 'span_id'))::uuid,
  ((m.elem ->> 'parent_id') || (m.elem ->> 'parent_id'))::uuid, 'invocation', k.span_type,
  CASE WHEN k.span_type = 'chat' THEN 'SPAN_KIND_CLIENT' ELSE 'SPAN_KIND_INTERNAL' END, coalesce(m.elem ->> 'name', ''),
  (m.elem ->> 'start_time')::timestamptz,
  coalesce((m.elem ->> 'end_time')::timestamptz, (m.elem ->> 'start_time')::timestamptz
    + make_interval(secs => coalesce((m.elem ->> 'duration_ms')::float8, 0) / 1000)),
  CASE WHEN m.elem -> 'status' ->> 'code' = 'error' THEN 'STATUS_CODE_ERROR' ELSE 'STATUS_CODE_OK' END,
  m.elem -> 'status' ->> 'message',
  jsonb_build_object('ag', jsonb_build_object(
    'type', jsonb_build_object('trace', 'invocation', 'span', k.span_type),
    'data', CASE WHEN jsonb_typeof(m.a -> 'inputs') = 'object' THEN jsonb_build_object('inputs', m.a -> 'inputs')
        WHEN m.a ? 'prompt' THEN jsonb_build_object('inputs', jsonb_build_object('prompt', m.a -> 'prompt')) ELSE '{}' END
      || CASE WHEN m.a ? 'outputs' AND m.a -> 'outputs' <> 'null' THEN jsonb_build_object('outputs', m.a -> 'outputs')
        ELSE '{}' END
      || CASE WHEN k.parameters = '{}' THEN '{}' ELSE jsonb_build_object('parameters', k.parameters) END
      || CASE WHEN k.internals = '{}' THEN '{}' ELSE jsonb_build_object('internals', k.internals) END,
    'metrics', jsonb_build_object(
      'duration', CASE WHEN m.elem ->> 'duration_ms' IS NULL THEN '{}'
        ELSE jsonb_build_object('cumulative', (m.elem ->> 'duration_ms')::float8) END,
      'errors', '{}'::jsonb, 'costs', '{}'::jsonb,
      'tokens', CASE WHEN jsonb_typeof(m.a -> 'usage') = 'object' THEN jsonb_build_object('incremental', k.tokens,
        'cumulative', k.tokens) ELSE '{}' END))),
  m.created_at
FROM traces_moving m
CROSS JOIN LATERAL (SELECT
  CASE m.elem ->> 'type' WHEN 'hook' THEN 'tool' WHEN 'code' THEN 'task' WHEN 'workflow' THEN 'workflow'
    WHEN 'chat' THEN 'chat' ELSE 'task' END AS span_type,
  CASE WHEN jsonb_typeof(m.a -> 'parameters') = 'object' THEN m.a -> 'parameters' ELSE '{}' END
    || CASE WHEN jsonb_typeof(m.a -> 'settings') = 'object' THEN m.a -> 'settings' ELSE '{}' END
    || jsonb_strip_nulls(jsonb_build_object('model', m.a -> 'model', 'provider', m.a -> 'provider')) AS parameters,
  m.a - ARRAY['inputs', 'outputs', 'parameters', 'settings', 'model', 'provider', 'prompt', 'usage'] AS internals,
  jsonb_build_object('prompt', coalesce(m.a -> 'usage' -> 'prompt_tokens', '0'),
    'completion', coalesce(m.a -> 'usage' -> 'completion_tokens', '0'),
    'total', coalesce(m.a -> 'usage' -> 'total_tokens', '0')) AS tokens
) k
WHERE m.elem IS NOT NULL AND m.elem ->> 'span_id' <> m.span_id
  AND m.elem ->> 'span_id' ~ '^[0-9a-f]{16}$' AND coalesce(m.elem ->> 'parent_id', m.span_id) ~ '^[0-9a-f]{16}$'
  AND m.elem ->> 'start_time' IS NOT NULL
ON CONFLICT DO NOTHING;

DROP TABLE traces_moving;
DROP TABLE traces;

-- Root spans by their hex trace id: what the view below is joined on.
CREATE INDEX spans_root_trace_hex ON spans (project_id, (replace(trace_id::text, '-', ''))) WHERE parent_id IS NULL;

-- The summary of every trace, read from its root span, in the columns the traces table had.
CREATE VIEW traces AS
SELECT project_id, replace(trace_id::text, '-', '') AS trace_id, substr(replace(span_id::text, '-', ''), 17) AS span_id,
  attributes #> '{ag,references}' AS refs, attributes #> '{ag,data,inputs}' AS inputs,
  attributes #> '{ag,data,outputs}' AS outputs,
  coalesce(attributes #> '{ag,meta,status}', jsonb_build_object('code',
    CASE WHEN status_code = 'STATUS_CODE_ERROR' THEN 500 ELSE 200 END)) AS status,
  (attributes #>> '{ag,metrics,duration,cumulative}')::float8 AS latency_ms,
  CASE WHEN jsonb_typeof(attributes #> '{ag,metrics,tokens,cumulative}') = 'object' THEN jsonb_build_object(
    'prompt_tokens', attributes #> '{ag,metrics,tokens,cumulative,prompt}',
    'completion_tokens', attributes #> '{ag,metrics,tokens,cumulative,completion}',
    'total_tokens', attributes #> '{ag,metrics,tokens,cumulative,total}') END AS usage,
  created_at
FROM spans WHERE parent_id IS NULL;
