-- A cached run looks up the newest successful result of each hash, and stores the ones it takes as copies
-- (flags.is_reused) with the same hash: every re-run adds one more result per hash. Ordered by time within
-- each hash, the index answers a lookup with one entry per hash however many copies there are; it used to
-- read them all and sort them (re-runs of one 20,000-testcase revision went from 3.9 s to over 5 s by the
-- third). Failed results are never looked up and are left out.
DROP INDEX evaluation_results_hash;
CREATE INDEX evaluation_results_hash ON evaluation_results (project_id, hash_id, created_at DESC)
  WHERE hash_id IS NOT NULL AND status = 'success';
