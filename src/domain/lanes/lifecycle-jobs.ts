import { type Db, immediateIfFree } from '../../store/db.ts';
import { statement } from '../../store/statements.ts';
import { dueJobs, type LeasedJob } from '../lifecycle/job-claims.ts';
import { maxShownAttempt } from '../lifecycle/retry-policy.ts';
import { type LaneTables, moveLaneLaunch } from './launch-table.ts';

/** A lane's launch, transition and job tables (src/store/migrations.ts, versions 12 and 13). */
export interface LaneJobTables extends LaneTables {
  jobs: 'v3_lifecycle_jobs' | 'multi_role_lifecycle_jobs';
}

/** A job the worker holds under its lease, with the status its step is for. */
export interface ClaimedLaneJob<S extends string> extends LeasedJob {
  status: S;
}

/** The columns a lane's step may set along with a status move. */
export type LaneFields = Record<string, string | number | null | undefined>;

/**
 * What one step concluded: a status move (with the columns it sets and what the job does next), a wait without a
 * status change (the job idles with its code until something wakes it), or a transient failure to retry.
 */
export type LaneStepResult<S extends string, F extends LaneFields> =
  | {
      kind: 'move';
      to: S;
      fields?: F;
      /** scheduled: the next step runs at once; idle: the tracker or an operation moves it on; done: terminal. */
      next: 'scheduled' | 'idle' | 'done';
    }
  | { kind: 'wait'; code: string | null }
  | { kind: 'retry'; code: string; delayMs: number };

/**
 * Claims up to `limit` due jobs of a lane's jobs table under their leases, in one immediate transaction, in claim
 * order (dueJobs, index-ordered): scheduled or retrying jobs of launches in one of `workerStatuses` whose time has
 * come, and running ones whose lease expired (a worker that died mid-step). Each `received` launch moves to
 * `validating` in the same transaction. Returns none when nothing is due or another connection holds the write lock
 * (the worker polls again).
 */
export function claimLaneJobs<S extends string>(
  db: Db,
  tables: LaneJobTables,
  workerStatuses: readonly S[],
  claim: { workerId: string; nowMs: number; leaseMs: number; limit: number },
): Array<ClaimedLaneJob<S>> {
  const { workerId, nowMs, leaseMs, limit } = claim;
  const claimed = immediateIfFree(db, (): Array<ClaimedLaneJob<S>> => {
    const at = new Date(nowMs).toISOString();
    const leaseExpiresMs = nowMs + leaseMs;
    const lease = statement(
      db,
      `UPDATE ${tables.jobs} SET state = 'running', attempt = ?, lease_owner = ?, lease_expires_ms = ?,
           next_attempt_ms = NULL, updated_at = ? WHERE launch_id = ?`,
    );
    const due = dueJobs<{ status: S }>(db, tables, workerStatuses, { columns: 'l.status', nowMs, limit });
    return due.map((row): ClaimedLaneJob<S> => {
      const attempt = Math.min(row.attempt + 1, maxShownAttempt);
      lease.run(attempt, workerId, leaseExpiresMs, at, row.launch_id);
      let status = row.status;
      if (status === 'received') {
        moveLaneLaunch(db, tables, {
          launchId: row.launch_id,
          from: 'received',
          to: 'validating',
          worker: workerId,
          at,
        });
        status = 'validating' as S;
      }
      return { launchId: row.launch_id, attempt, priorAttempt: row.attempt, leaseExpiresMs, status };
    });
  });
  return claimed ?? [];
}

/** Claims the one earliest due job of a lane's jobs table under a lease (claimLaneJobs); null when none is due. */
export function claimLaneJob<S extends string>(
  db: Db,
  tables: LaneJobTables,
  workerStatuses: readonly S[],
  claim: { workerId: string; nowMs: number; leaseMs: number },
): ClaimedLaneJob<S> | null {
  return claimLaneJobs(db, tables, workerStatuses, { ...claim, limit: 1 })[0] ?? null;
}

/**
 * Commits a step's outcome in one immediate transaction, only while the worker still holds the job's lease and the
 * launch still has the status the step ran for (moveLaneLaunch guards the status): a worker whose lease expired (it
 * was presumed dead, and another took the job over) changes nothing, so no step is applied twice. Returns whether
 * it committed.
 */
export function commitLaneStep<S extends string, F extends LaneFields>(
  db: Db,
  tables: LaneJobTables,
  job: ClaimedLaneJob<S>,
  commit: { workerId: string; nowMs: number },
  result: LaneStepResult<S, F>,
): boolean {
  const { workerId, nowMs } = commit;
  return db
    .transaction((): boolean => {
      const held = statement(
        db,
        `SELECT 1 AS held FROM ${tables.jobs} WHERE launch_id = ? AND state = 'running' AND lease_owner = ?`,
      ).get(job.launchId, workerId);
      if (!held) return false;
      const at = new Date(nowMs).toISOString();
      if (result.kind === 'move') {
        const move = { launchId: job.launchId, from: job.status, to: result.to, worker: workerId, at };
        if (!moveLaneLaunch(db, tables, move, result.fields)) {
          // Someone else (a cancellation, the signature operation) moved the launch: the job idles for them.
          setJob(db, tables, job.launchId, { state: 'idle', next: null, code: null, resetAttempt: false, at });
          return false;
        }
        setJob(db, tables, job.launchId, {
          state: result.next,
          next: result.next === 'scheduled' ? nowMs : null,
          code: null,
          resetAttempt: true,
          at,
        });
        return true;
      }
      if (result.kind === 'wait') {
        setJob(db, tables, job.launchId, { state: 'idle', next: null, code: result.code, resetAttempt: true, at });
        return true;
      }
      setJob(db, tables, job.launchId, {
        state: 'retry_wait',
        next: nowMs + result.delayMs,
        code: result.code,
        resetAttempt: false,
        at,
      });
      return true;
    })
    .immediate();
}

function setJob(
  db: Db,
  tables: LaneJobTables,
  launchId: string,
  job: { state: string; next: number | null; code: string | null; resetAttempt: boolean; at: string },
): void {
  statement(
    db,
    `UPDATE ${tables.jobs} SET state = ?, next_attempt_ms = ?, lease_owner = NULL, lease_expires_ms = NULL,
       last_error_code = ?, attempt = CASE WHEN ? THEN 0 ELSE attempt END, updated_at = ? WHERE launch_id = ?`,
  ).run(job.state, job.next, job.code, job.resetAttempt ? 1 : 0, job.at, launchId);
}

/**
 * Schedules a launch's job at once (an operator's re-review, the signature operation): only a job that is not
 * running, so a step in flight commits first and its own outcome decides.
 */
export function scheduleLaneJob(db: Db, tables: LaneJobTables, launchId: string, nowMs: number): void {
  statement(
    db,
    `UPDATE ${tables.jobs} SET state = 'scheduled', next_attempt_ms = ?, last_error_code = NULL, updated_at = ?
       WHERE launch_id = ? AND state <> 'running'`,
  ).run(nowMs, new Date(nowMs).toISOString(), launchId);
}

/** Records a status move made outside the worker's lease (the tracker): the job follows the new status. */
export function settleLaneJob(
  db: Db,
  tables: LaneJobTables,
  launchId: string,
  state: 'idle' | 'done',
  nowMs: number,
): void {
  statement(
    db,
    `UPDATE ${tables.jobs} SET state = ?, next_attempt_ms = NULL, lease_owner = NULL, lease_expires_ms = NULL,
       updated_at = ? WHERE launch_id = ?`,
  ).run(state, new Date(nowMs).toISOString(), launchId);
}

/** Shows a tracker poll's transient code on the launch's job (null clears it); the status never changes here. */
export function recordLanePoll(
  db: Db,
  tables: LaneJobTables,
  launchId: string,
  code: string | null,
  nowMs: number,
): void {
  statement(db, `UPDATE ${tables.jobs} SET last_error_code = ?, updated_at = ? WHERE launch_id = ?`).run(
    code,
    new Date(nowMs).toISOString(),
    launchId,
  );
}
