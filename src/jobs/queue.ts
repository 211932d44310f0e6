import { json, type Queryable } from "../db/database.ts";
import { uuidv7 } from "../ids/uuid-v7.ts";

/*
 * A durable work queue in the `jobs` table, on either database. Any process claims due jobs with
 * `FOR UPDATE SKIP LOCKED` and holds each under a lease (a token and an expiry); a process that dies
 * simply stops renewing, and its jobs become claimable again when their leases run out. Every write
 * after the claim names the lease token, so a process that lost its lease cannot finish a job that
 * another one now holds. The queue knows no feature: `queue` names the kind of work, `payload` is opaque.
 */

/** The NOTIFY channel a worker listens on to claim new work without waiting for its next poll. */
export const JOBS_CHANNEL = "tessera_jobs";

export type JobStatus = "queued" | "running" | "done" | "failed" | "cancelled";

export interface Job<P = unknown> {
  id: string;
  queue: string;
  projectId: string | null;
  key: string | null;
  payload: P;
  /** Claims so far, this one included. */
  attempts: number;
  maxAttempts: number;
  leaseToken: string;
}

export interface NewJob {
  queue: string;
  payload: unknown;
  projectId?: string | null;
  /** At most one job per (queue, key): a job whose key is already queued, running or finished is not added again. */
  key?: string | null;
  delayMs?: number;
  maxAttempts?: number;
}

interface JobRow {
  id: string;
  queue: string;
  project_id: string | null;
  key: string | null;
  payload: unknown;
  attempts: number;
  max_attempts: number;
  lease_token: string;
}

const toJob = <P>(r: JobRow): Job<P> => ({
  id: r.id, queue: r.queue, projectId: r.project_id, key: r.key, payload: r.payload as P,
  attempts: r.attempts, maxAttempts: r.max_attempts, leaseToken: r.lease_token,
});

/**
 * Adds jobs in one statement and wakes the workers of their queues (a notice naming each queue, at commit when `db` is
 * a transaction); returns how many were new.
 */
export async function enqueue(db: Queryable, jobs: NewJob[]): Promise<number> {
  if (jobs.length === 0) return 0;
  const rows = jobs.map((j) => ({
    id: uuidv7(), queue: j.queue, project_id: j.projectId ?? null, key: j.key ?? null, payload: j.payload ?? null,
    max_attempts: j.maxAttempts ?? 5, delay_ms: j.delayMs ?? 0,
  }));
  const added = await db.query<{ n: number }>(
    `WITH added AS (
       INSERT INTO jobs (id, queue, project_id, key, payload, max_attempts, run_after)
       SELECT id, queue, project_id, key, coalesce(payload, 'null'::jsonb), max_attempts,
              now() + make_interval(secs => delay_ms / 1000.0)
       FROM jsonb_to_recordset($1::jsonb)
         AS t(id uuid, queue text, project_id uuid, key text, payload jsonb, max_attempts integer, delay_ms double precision)
       ON CONFLICT (queue, key) WHERE key IS NOT NULL DO NOTHING
       RETURNING queue),
     notified AS (SELECT pg_notify($2, queue) FROM (SELECT DISTINCT queue FROM added) q)
     SELECT (SELECT count(*)::int FROM added) AS n, (SELECT count(*) FROM notified) AS queues`,
    [json(rows), JOBS_CHANNEL],
  );
  return added[0]?.n ?? 0;
}

/**
 * Claims up to `limit` due jobs of `queue` for `leaseMs`: jobs whose lease ran out (their process is gone) first,
 * then queued jobs whose time has come, project by project: the project with the fewest jobs of the queue leased
 * goes first, counting each job this claim gives it (round robin), then the oldest job; jobs without a project are
 * served as one more project. No project is given a job that takes it past `projectLimit` leased jobs of the queue,
 * counted across all processes as this claim sees them: claims of other processes at the same moment do not see
 * each other's, so together they may take a project past it by what each took, until those jobs end.
 */
export async function claim<P = unknown>(
  db: Queryable, queue: string, limit: number, leaseMs: number, projectLimit: number | null = null,
): Promise<Job<P>[]> {
  const rows = await db.query<JobRow>(CLAIM, [queue, limit, uuidv7(), leaseMs, projectLimit]);
  return rows.map(toJob<P>);
}

/** A job's project in the claim's turns (migration 025 indexes it): the nil uuid stands for "no project". */
const OWNER = "coalesce(project_id, '00000000-0000-0000-0000-000000000000')";

/*
 * `waiting` finds the projects with queued jobs, one index probe each (a loose index scan); `running` holds the
 * queue's leased jobs, few by construction. Each waiting project offers its oldest due jobs, as many as its room under
 * the limit (all of them without one), ranked by its leases once each is taken. The lock goes down the ranking and
 * skips what another claim holds, so claims at the same moment take different jobs while a project has room, and
 * re-checks that each job is still due (another claim may have taken it since this one's snapshot). The ranking is
 * handed over as an array, whose row estimate keeps the lookups on the primary key.
 */
const CLAIM = `
  WITH RECURSIVE waiting AS (
    (SELECT ${OWNER} AS owner FROM jobs WHERE queue = $1 AND status = 'queued' ORDER BY 1 LIMIT 1)
    UNION ALL
    SELECT next.owner FROM waiting w CROSS JOIN LATERAL (
      SELECT ${OWNER} AS owner FROM jobs WHERE queue = $1 AND status = 'queued' AND ${OWNER} > w.owner
      ORDER BY 1 LIMIT 1) next
  ),
  running AS (
    SELECT id, run_after, ${OWNER} AS owner, lease_until >= now() AS live
    FROM jobs WHERE queue = $1 AND status = 'running'
  ),
  rooms AS (
    SELECT w.owner, count(r.live OR NULL)::int AS leased FROM waiting w LEFT JOIN running r USING (owner) GROUP BY 1
  ),
  offered AS (
    SELECT id, run_after, 0 AS turn FROM running WHERE NOT live
    UNION ALL
    SELECT c.id, c.run_after, r.leased + c.rank FROM rooms r CROSS JOIN LATERAL (
      SELECT id, run_after, row_number() OVER (ORDER BY run_after, id) AS rank FROM jobs
      WHERE queue = $1 AND status = 'queued' AND run_after <= now() AND ${OWNER} = r.owner
      ORDER BY run_after, id LIMIT $5::int - least(r.leased, $5::int)) c
  ),
  due AS (
    SELECT j.id FROM unnest(ARRAY(SELECT id FROM offered ORDER BY turn, run_after, id)) WITH ORDINALITY AS o (id, n)
      JOIN jobs j ON j.id = o.id
    WHERE (j.status = 'queued' AND j.run_after <= now()) OR (j.status = 'running' AND j.lease_until < now())
    ORDER BY o.n
    LIMIT $2
    FOR UPDATE OF j SKIP LOCKED
  )
  UPDATE jobs SET status = 'running', attempts = jobs.attempts + 1, lease_token = $3,
    lease_until = now() + make_interval(secs => $4 / 1000.0), updated_at = now()
  FROM due WHERE jobs.id = due.id
  RETURNING jobs.id, jobs.queue, jobs.project_id, jobs.key, jobs.payload, jobs.attempts, jobs.max_attempts,
    jobs.lease_token`;

/** Moves a held job's lease `leaseMs` into the future; false when the lease was lost (the job is no longer ours). */
export async function renew(db: Queryable, job: Job, leaseMs: number): Promise<boolean> {
  const rows = await db.query(
    `UPDATE jobs SET lease_until = now() + make_interval(secs => $3 / 1000.0), updated_at = now()
     WHERE id = $1 AND lease_token = $2 AND status = 'running' RETURNING id`,
    [job.id, job.leaseToken, leaseMs],
  );
  return rows.length === 1;
}

/** Replaces a held job's payload (a job that records how far it got); false when the lease was lost. */
export async function savePayload(db: Queryable, job: Job, payload: unknown): Promise<boolean> {
  const rows = await db.query(
    "UPDATE jobs SET payload = $3::jsonb, updated_at = now() WHERE id = $1 AND lease_token = $2 AND status = 'running' RETURNING id",
    [job.id, job.leaseToken, json(payload)],
  );
  return rows.length === 1;
}

/** Marks a held job done; false when the lease was lost. Call it inside the transaction that stores the job's effects. */
export async function complete(db: Queryable, job: Job): Promise<boolean> {
  const rows = await db.query(
    `UPDATE jobs SET status = 'done', lease_token = NULL, lease_until = NULL, last_error = NULL, updated_at = now()
     WHERE id = $1 AND lease_token = $2 AND status = 'running' RETURNING id`,
    [job.id, job.leaseToken],
  );
  return rows.length === 1;
}

/**
 * Records a failed attempt of a held job: due again after `retryInMs`, or failed for good when
 * `retryInMs` is null. False when the lease was lost.
 */
export async function fail(db: Queryable, job: Job, error: string, retryInMs: number | null): Promise<boolean> {
  const rows = await db.query(
    `UPDATE jobs SET status = CASE WHEN $4::double precision IS NULL THEN 'failed' ELSE 'queued' END,
       run_after = now() + make_interval(secs => coalesce($4, 0) / 1000.0),
       lease_token = NULL, lease_until = NULL, last_error = $3, updated_at = now()
     WHERE id = $1 AND lease_token = $2 AND status = 'running' RETURNING id`,
    [job.id, job.leaseToken, error.slice(0, 4000), retryInMs],
  );
  return rows.length === 1;
}

/** Hands a held job back untried (a process shutting down): due at once, and this claim does not count as an attempt. */
export async function release(db: Queryable, job: Job): Promise<boolean> {
  const rows = await db.query(
    `UPDATE jobs SET status = 'queued', attempts = greatest(attempts - 1, 0), run_after = now(),
       lease_token = NULL, lease_until = NULL, updated_at = now()
     WHERE id = $1 AND lease_token = $2 AND status = 'running' RETURNING id`,
    [job.id, job.leaseToken],
  );
  return rows.length === 1;
}

/**
 * Makes every running job of `queues` due again at once (their process is known to be gone); the claim still counts
 * as an attempt. Only the caller's queues: another worker of the same process may hold jobs of its own already.
 */
export async function releaseOrphans(db: Queryable, queues: string[]): Promise<number> {
  const rows = await db.query(
    `UPDATE jobs SET status = 'queued', run_after = now(), lease_token = NULL, lease_until = NULL, updated_at = now()
     WHERE status = 'running' AND queue = ANY($1::text[]) RETURNING id`,
    [queues],
  );
  return rows.length;
}

/** Cancels the queued jobs of `queue` whose payload contains `match` (jsonb `@>`); running ones finish. Returns how many. */
export async function cancelQueued(db: Queryable, queue: string, match: Record<string, unknown>): Promise<number> {
  const rows = await db.query(
    `UPDATE jobs SET status = 'cancelled', updated_at = now()
     WHERE queue = $1 AND status = 'queued' AND payload @> $2::jsonb RETURNING id`,
    [queue, json(match)],
  );
  return rows.length;
}

/** Whether a job of these queues whose payload contains `match` is queued or running (only those are read). */
export async function hasOpenJobs(db: Queryable, queues: string[], match: Record<string, unknown>): Promise<boolean> {
  const rows = await db.query(
    `SELECT 1 FROM jobs WHERE queue = ANY($1::text[]) AND status = 'queued' AND payload @> $2::jsonb
     UNION ALL
     SELECT 1 FROM jobs WHERE queue = ANY($1::text[]) AND status = 'running' AND payload @> $2::jsonb
     LIMIT 1`,
    [queues, json(match)],
  );
  return rows.length > 0;
}

/** How many jobs of `queue` whose payload contains `match` are in each status. */
export async function countByStatus(db: Queryable, queue: string, match: Record<string, unknown>): Promise<Record<JobStatus, number>> {
  const rows = await db.query<{ status: JobStatus; n: number }>(
    `SELECT status, count(*)::int AS n FROM jobs
     WHERE queue = $1 AND ($2::jsonb = '{}' OR payload @> $2::jsonb) GROUP BY status`,
    [queue, json(match)],
  );
  const counts: Record<JobStatus, number> = { queued: 0, running: 0, done: 0, failed: 0, cancelled: 0 };
  for (const r of rows) counts[r.status] = r.n;
  return counts;
}
