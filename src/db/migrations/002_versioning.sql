-- One set of tables for every versioned kind. `kind` is the storage family: 'workflow' (applications,
-- evaluators and plain workflows, told apart by flags), 'environment' and 'testset'.

CREATE TABLE artifacts (
  id uuid PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects (id),
  kind text NOT NULL,
  slug text NOT NULL,
  name text,
  description text,
  flags jsonb NOT NULL DEFAULT '{}',
  tags jsonb,
  meta jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz,
  deleted_at timestamptz,
  created_by_id uuid,
  updated_by_id uuid,
  deleted_by_id uuid,
  UNIQUE (project_id, kind, slug)
);

CREATE TABLE variants (
  id uuid PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects (id),
  kind text NOT NULL,
  artifact_id uuid NOT NULL REFERENCES artifacts (id),
  slug text NOT NULL,
  name text,
  description text,
  flags jsonb NOT NULL DEFAULT '{}',
  tags jsonb,
  meta jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz,
  deleted_at timestamptz,
  created_by_id uuid,
  updated_by_id uuid,
  deleted_by_id uuid,
  UNIQUE (project_id, kind, slug)
);
CREATE INDEX variants_artifact ON variants (artifact_id, id);

CREATE TABLE revisions (
  id uuid PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects (id),
  kind text NOT NULL,
  artifact_id uuid NOT NULL REFERENCES artifacts (id),
  variant_id uuid NOT NULL REFERENCES variants (id),
  version integer NOT NULL,
  parent_id uuid REFERENCES revisions (id),
  slug text NOT NULL,
  name text,
  description text,
  message text,
  author uuid,
  date timestamptz NOT NULL DEFAULT now(),
  flags jsonb NOT NULL DEFAULT '{}',
  tags jsonb,
  meta jsonb,
  data jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz,
  deleted_at timestamptz,
  created_by_id uuid,
  updated_by_id uuid,
  deleted_by_id uuid,
  UNIQUE (variant_id, version),
  UNIQUE (project_id, kind, slug)
);
CREATE INDEX revisions_artifact ON revisions (artifact_id, id);
