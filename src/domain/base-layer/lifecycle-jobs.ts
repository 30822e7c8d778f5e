import type { Db } from '../../store/db.ts';
import { statement } from '../../store/statements.ts';
import { maxShownAttempt } from '../lifecycle/retry-policy.ts';
import { type BaseLaunchFields, type BaseLaunchStatus, moveBaseLaunch } from './launch-store.ts';

/** Statuses whose step the lifecycle worker runs; from authorized on (and while awaiting a signature) the tracker polls. */
export const workerStatuses: readonly BaseLaunchStatus[] = [
  'received',
  'validating',
  'pending_review',
  'funding_authorization_verified',
  'prepared',
  'simulating',
];

/** A job the worker holds under its lease, with the status its step is for. */
export interface ClaimedBaseJob {
  launchId: string;
  attempt: number;
  status: BaseLaunchStatus;
}

/**
 * What one step concluded: a status move (with the columns it sets and what the job does next), a wait without a
 * status change (the job idles with its code until something wakes it), or a transient failure to retry.
 */
export type BaseStepResult =
  | {
      kind: 'move';
      to: BaseLaunchStatus;
      fields?: BaseLaunchFields;
      /** scheduled: the next step runs at once; idle: the tracker or an operation moves it on; done: terminal. */
      next: 'scheduled' | 'idle' | 'done';
    }
  | { kind: 'wait'; code: string | null }
  | { kind: 'retry'; code: string; delayMs: number };

/**
 * Claims one due job of v3_lifecycle_jobs under a lease, in one immediate transaction: a scheduled or retrying job
 * whose time has come, or a running one whose lease expired (a worker that died mid-step). A `received` launch moves
 * to `validating` in the same transaction. Returns null when nothing is due.
 */
export function claimBaseJob(db: Db, workerId: string, nowMs: number, leaseMs: number): ClaimedBaseJob | null {
  return db
    .transaction((): ClaimedBaseJob | null => {
      const due = statement(
        db,
        `SELECT j.launch_id, j.attempt, l.status FROM v3_lifecycle_jobs j
           JOIN v3_launches l ON l.launch_id = j.launch_id
           WHERE l.status IN (${workerStatuses.map(() => '?').join(', ')})
             AND ((j.state IN ('scheduled', 'retry_wait') AND j.next_attempt_ms <= ?)
               OR (j.state = 'running' AND j.lease_expires_ms <= ?))
           ORDER BY j.next_attempt_ms LIMIT 1`,
      ).get(...workerStatuses, nowMs, nowMs) as
        | { launch_id: string; attempt: number; status: BaseLaunchStatus }
        | undefined;
      if (!due) return null;
      const at = new Date(nowMs).toISOString();
      const attempt = Math.min(due.attempt + 1, maxShownAttempt);
      statement(
        db,
        `UPDATE v3_lifecycle_jobs SET state = 'running', attempt = ?, lease_owner = ?, lease_expires_ms = ?,
           next_attempt_ms = NULL, updated_at = ? WHERE launch_id = ?`,
      ).run(attempt, workerId, nowMs + leaseMs, at, due.launch_id);
      let status = due.status;
      if (status === 'received') {
        moveBaseLaunch(db, { launchId: due.launch_id, from: 'received', to: 'validating', worker: workerId, at });
        status = 'validating';
      }
      return { launchId: due.launch_id, attempt, status };
    })
    .immediate();
}

/**
 * Commits a step's outcome in one immediate transaction, only while the worker still holds the job's lease and the
 * launch still has the status the step ran for (moveBaseLaunch guards the status): a worker whose lease expired (it
 * was presumed dead, and another took the job over) changes nothing, so no step is applied twice. Returns whether
 * it committed.
 */
export function commitBaseStep(
  db: Db,
  job: ClaimedBaseJob,
  workerId: string,
  nowMs: number,
  result: BaseStepResult,
): boolean {
  return db
    .transaction((): boolean => {
      const held = statement(
        db,
        `SELECT 1 AS held FROM v3_lifecycle_jobs WHERE launch_id = ? AND state = 'running' AND lease_owner = ?`,
      ).get(job.launchId, workerId);
      if (!held) return false;
      const at = new Date(nowMs).toISOString();
      if (result.kind === 'move') {
        const move = { launchId: job.launchId, from: job.status, to: result.to, worker: workerId, at };
        if (!moveBaseLaunch(db, move, result.fields)) {
          // Someone else (a cancellation, the signature operation) moved the launch: the job idles for them.
          setJob(db, job.launchId, { state: 'idle', next: null, code: null, resetAttempt: false, at });
          return false;
        }
        const state = result.next === 'scheduled' ? 'scheduled' : result.next;
        setJob(db, job.launchId, {
          state,
          next: state === 'scheduled' ? nowMs : null,
          code: null,
          resetAttempt: true,
          at,
        });
        return true;
      }
      if (result.kind === 'wait') {
        setJob(db, job.launchId, { state: 'idle', next: null, code: result.code, resetAttempt: true, at });
        return true;
      }
      setJob(db, job.launchId, {
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
  launchId: string,
  job: { state: string; next: number | null; code: string | null; resetAttempt: boolean; at: string },
): void {
  statement(
    db,
    `UPDATE v3_lifecycle_jobs SET state = ?, next_attempt_ms = ?, lease_owner = NULL, lease_expires_ms = NULL,
       last_error_code = ?, attempt = CASE WHEN ? THEN 0 ELSE attempt END, updated_at = ? WHERE launch_id = ?`,
  ).run(job.state, job.next, job.code, job.resetAttempt ? 1 : 0, job.at, launchId);
}

/**
 * Schedules a launch's job at once (an operator's re-review, the signature operation): only a job that is not
 * running, so a step in flight commits first and its own outcome decides.
 */
export function scheduleBaseJob(db: Db, launchId: string, nowMs: number): void {
  statement(
    db,
    `UPDATE v3_lifecycle_jobs SET state = 'scheduled', next_attempt_ms = ?, last_error_code = NULL, updated_at = ?
       WHERE launch_id = ? AND state <> 'running'`,
  ).run(nowMs, new Date(nowMs).toISOString(), launchId);
}

/** Records a status move made outside the worker's lease (the tracker): the job follows the new status. */
export function settleBaseJob(db: Db, launchId: string, state: 'idle' | 'done', nowMs: number): void {
  statement(
    db,
    `UPDATE v3_lifecycle_jobs SET state = ?, next_attempt_ms = NULL, lease_owner = NULL, lease_expires_ms = NULL,
       updated_at = ? WHERE launch_id = ?`,
  ).run(state, new Date(nowMs).toISOString(), launchId);
}
