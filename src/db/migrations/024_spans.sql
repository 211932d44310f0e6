-- Spans received over OTLP, normalised to the reference's span model (src/tracing/). Rows are appended; a span
-- sent again under the same ids replaces the stored one, as the reference's ingest does. Ids are stored as the
-- reference stores them: a trace id as the uuid of its 32 hex digits, a span id as the uuid of its 16 hex digits
-- written twice.
CREATE TABLE spans (
  project_id uuid NOT NULL REFERENCES projects (id),
  trace_id uuid NOT NULL,
  span_id uuid NOT NULL,
  parent_id uuid,
  trace_type text NOT NULL,
  span_type text NOT NULL,
  span_kind text NOT NULL,
  span_name text NOT NULL,
  start_time timestamptz NOT NULL,
  end_time timestamptz NOT NULL,
  status_code text NOT NULL,
  status_message text,
  -- Root spans only: lifted from ag.session.id, ag.user.id and ag.agent.id.
  session_id text,
  user_id text,
  agent_id text,
  attributes jsonb,
  "references" jsonb,
  links jsonb,
  hashes jsonb,
  events jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  created_by_id uuid,
  -- A trace by id reads this key's prefix (project_id, trace_id).
  PRIMARY KEY (project_id, trace_id, span_id)
);
-- Newest first, within a time window: every query's order and range.
CREATE INDEX spans_project_start_time ON spans (project_id, start_time DESC);
-- `references` conditions are containments (@>) of a reference object.
CREATE INDEX spans_references ON spans USING gin ("references" jsonb_path_ops);
CREATE INDEX spans_project_session ON spans (project_id, session_id) WHERE session_id IS NOT NULL;
