-- Facts the versioning engine records inside the transaction of the change they describe (src/events/): a commit
-- and its event are written together or not at all, so a subscriber is told of every change that happened.
CREATE TABLE events (
  id uuid PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  event_type text NOT NULL,
  attributes jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX events_project ON events (project_id, id);
