-- Testcase rows and chunk-index rows are written by the million on an upload. Their foreign keys cost
-- a lookup per row (about 40% of a 1,000,000-row load) and guard nothing the code does not already:
-- both are written only in the transaction that has just read the project's testset, and projects and
-- artifacts are never deleted (artifacts are archived). The few-rows-per-commit tables keep theirs.
ALTER TABLE testcases DROP CONSTRAINT IF EXISTS testcases_project_id_fkey;
ALTER TABLE testcases DROP CONSTRAINT IF EXISTS testcases_testset_id_fkey;
ALTER TABLE testcase_chunk_index DROP CONSTRAINT IF EXISTS testcase_chunk_index_project_id_fkey;
