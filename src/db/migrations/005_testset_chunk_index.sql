-- A testset revision's ordered ids are a two-level tree: leaf chunks of testcase ids (testcase_chunks)
-- and chunk lists of leaf hashes with their sizes (testcase_chunk_lists); revisions.data holds only
-- the list hashes. testcase_chunk_index says which leaf chunks hold a testcase id, so a delta that
-- removes or replaces rows finds its chunks without reading the whole id list.

-- `entries` is a run of 36-byte records: a leaf chunk's SHA-256 (32 bytes) and its id count (uint32 BE).
CREATE TABLE testcase_chunk_lists (
  project_id uuid NOT NULL REFERENCES projects (id),
  hash text NOT NULL,
  entries bytea NOT NULL,
  PRIMARY KEY (project_id, hash)
);

-- `chunk_key` is the first 8 bytes of the chunk's hash as a signed integer: compact, and a collision
-- only makes a commit look at one chunk too many (the chunk itself is read before it is edited).
CREATE TABLE testcase_chunk_index (
  project_id uuid NOT NULL REFERENCES projects (id),
  testcase_id uuid NOT NULL,
  chunk_key bigint NOT NULL,
  PRIMARY KEY (project_id, testcase_id, chunk_key)
);

INSERT INTO testcase_chunk_index (project_id, testcase_id, chunk_key)
SELECT c.project_id, encode(substring(c.ids FROM i * 16 + 1 FOR 16), 'hex')::uuid, ('x' || left(c.hash, 16))::bit(64)::bigint
FROM testcase_chunks c, generate_series(0, length(c.ids) / 16 - 1) i
ON CONFLICT DO NOTHING;
