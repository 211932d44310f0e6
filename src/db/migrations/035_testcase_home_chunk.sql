-- The leaf chunk a testcase was first stored in by an upload, by its key (as testcase_chunk_index keys chunks). An
-- upload of 1,000,000 new rows wrote as many index rows as testcases (a third of the database's work for the upload);
-- now a testcase an upload stores names its chunk here, in the row it writes anyway, and only the ids an upload did
-- not store itself (rows stored before, ids that rows claim) get index rows. A chunk's ids are found through both
-- (src/testsets/chunk-edit.ts). NULL for every other testcase: their chunks are indexed as before.
ALTER TABLE testcases ADD COLUMN chunk_key bigint;
