-- Testcases are immutable blobs addressed by a hash of their content and testset; a testset revision
-- stores its ordered testcase ids as a list of content-defined chunks (revisions.data = {chunks, count}),
-- so revisions that share rows share chunks and a commit writes only the chunks its delta touched.

CREATE TABLE testcases (
  project_id uuid NOT NULL REFERENCES projects (id),
  id uuid NOT NULL,
  testset_id uuid NOT NULL REFERENCES artifacts (id),
  data jsonb NOT NULL,
  flags jsonb,
  tags jsonb,
  meta jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  created_by_id uuid,
  PRIMARY KEY (project_id, id)
);
CREATE INDEX testcases_testset ON testcases (project_id, testset_id, id);

-- `ids` is the chunk's testcase ids packed as 16-byte binary UUIDs; `hash` is the SHA-256 of those bytes.
CREATE TABLE testcase_chunks (
  project_id uuid NOT NULL REFERENCES projects (id),
  hash text NOT NULL,
  ids bytea NOT NULL,
  PRIMARY KEY (project_id, hash)
);
