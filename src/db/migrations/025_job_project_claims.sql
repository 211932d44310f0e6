-- Claims serve projects in turn (src/jobs/queue.ts): a claim walks the projects that have queued jobs of a queue and
-- reads each one's oldest due jobs through this index, so its cost follows the number of projects waiting, not the
-- size of the backlog. Jobs without a project are one more project, under the nil uuid.
CREATE INDEX jobs_project_claimable
  ON jobs (queue, (coalesce(project_id, '00000000-0000-0000-0000-000000000000')), run_after, id)
  WHERE status = 'queued';
-- Nothing reads queued jobs in queue order any more; the other reads of them filter by queue, which this one serves.
DROP INDEX jobs_claimable;
