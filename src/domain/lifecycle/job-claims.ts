import type { Db } from '../../store/db.ts';
import { statement } from '../../store/statements.ts';

/**
 * The most due jobs one claim leases in one immediate transaction: one synchronous=FULL commit for up to this many
 * launches instead of one each, while a claim still holds few jobs a crashed process leaves waiting for their leases.
 */
export const claimBatchSize = 16;

/** A jobs table with its launches table (lifecycle_jobs, v3_lifecycle_jobs, multi_role_lifecycle_jobs). */
export interface JobTables {
  jobs: string;
  launches: string;
}

/** A due job's row: its id and attempt, and the columns the caller asked for. */
export type DueJobRow<R> = R & { launch_id: string; attempt: number };

/**
 * The earliest due jobs of a jobs table whose launch is in one of `statuses`, at most `limit`, in claim order: first
 * the running jobs whose lease expired (a worker that died mid-step), by lease expiry, then the scheduled and retrying
 * ones by next_attempt_ms. Each state is read by its own index in order (lifecycle_jobs_due and its lanes' twins on
 * (state, next_attempt_ms), and the partial lease indexes of migration 19), so a claim reads O(log n + limit) rows at
 * any backlog rather than sorting every due job. `columns` selects more of `j` (the job) and `l` (the launch).
 */
export function dueJobs<R>(
  db: Db,
  tables: JobTables,
  statuses: readonly string[],
  query: { columns: string; nowMs: number; limit: number },
): Array<DueJobRow<R>> {
  const { columns, nowMs, limit } = query;
  // CROSS JOIN keeps the job's index the outer loop (the launches' status index would sort every match instead).
  const select = (index: string) => `SELECT j.launch_id, j.attempt, j.next_attempt_ms AS due_ms, ${columns}
    FROM ${tables.jobs} j INDEXED BY ${tables.jobs}_${index} CROSS JOIN ${tables.launches} l ON l.launch_id = j.launch_id`;
  const inStatus = `l.status IN (${statuses.map(() => '?').join(', ')})`;
  // The planner would rather take (state = 'running') from the due index and sort the expired leases.
  const expired = statement(
    db,
    `${select('lease')} WHERE j.state = 'running' AND j.lease_expires_ms <= ? AND ${inStatus}
       ORDER BY j.lease_expires_ms LIMIT ?`,
  ).all(nowMs, ...statuses, limit) as Array<DueJobRow<R> & { due_ms: number | null }>;
  if (expired.length >= limit) return expired;
  const waiting = statement(
    db,
    `${select('due')} WHERE j.state = ? AND j.next_attempt_ms <= ? AND ${inStatus} ORDER BY j.next_attempt_ms LIMIT ?`,
  );
  const rest = limit - expired.length;
  const scheduled = waiting.all('scheduled', nowMs, ...statuses, rest) as Array<DueJobRow<R> & { due_ms: number }>;
  const retrying = waiting.all('retry_wait', nowMs, ...statuses, rest) as Array<DueJobRow<R> & { due_ms: number }>;
  const merged = [...scheduled, ...retrying].sort((a, b) => a.due_ms - b.due_ms).slice(0, rest);
  return [...expired, ...merged];
}

/** A job held under this worker's lease, with the attempt it had before the claim. */
export interface LeasedJob {
  launchId: string;
  attempt: number;
  priorAttempt: number;
  leaseExpiresMs: number;
}

/**
 * The jobs one worker claimed in a batch and has not started yet, run one per tick in claim order. A job starts only
 * with at least half its lease ahead: otherwise the leases of every job still waiting are renewed first, in one
 * transaction, and a job whose lease another worker took over meanwhile is dropped (it runs there). Stopping releases
 * the waiting jobs at once (their leases expire now, their attempts as before the claim), so another process claims
 * them without waiting out the lease; a killed process leaves them to expire.
 */
export class ClaimedJobs<J extends LeasedJob> {
  private waiting: J[] = [];

  constructor(
    private readonly db: Db,
    private readonly jobsTable: string,
    private readonly lease: { workerId: string; leaseMs: number },
  ) {}

  /** The next job to run: a waiting one, else the first of a new batch from `claim`; null when nothing is due. */
  next(nowMs: number, claim: () => J[]): J | null {
    if (this.waiting.length === 0) this.waiting = claim();
    const head = this.waiting[0];
    if (head && head.leaseExpiresMs - nowMs < this.lease.leaseMs / 2) this.renew(nowMs);
    return this.waiting.shift() ?? null;
  }

  /** Releases every job claimed and not started (the worker stops). */
  release(nowMs: number): void {
    const jobs = this.waiting;
    this.waiting = [];
    if (jobs.length === 0) return;
    const expire = statement(
      this.db,
      `UPDATE ${this.jobsTable} SET lease_expires_ms = ?, attempt = ?
         WHERE launch_id = ? AND state = 'running' AND lease_owner = ?`,
    );
    try {
      this.db
        .transaction(() => {
          for (const job of jobs) expire.run(nowMs, job.priorAttempt, job.launchId, this.lease.workerId);
        })
        .immediate();
    } catch {
      // The file is busy or gone: the leases then expire on their own, as a killed process leaves them.
    }
  }

  private renew(nowMs: number): void {
    const expiresMs = nowMs + this.lease.leaseMs;
    const extend = statement(
      this.db,
      `UPDATE ${this.jobsTable} SET lease_expires_ms = ? WHERE launch_id = ? AND state = 'running' AND lease_owner = ?`,
    );
    this.waiting = this.db
      .transaction(() =>
        this.waiting.filter((job) => extend.run(expiresMs, job.launchId, this.lease.workerId).changes === 1),
      )
      .immediate();
    for (const job of this.waiting) job.leaseExpiresMs = expiresMs;
  }
}
