import type { Db } from '../../store/db.ts';
import {
  type ClaimedLaneJob,
  claimLaneJob,
  commitLaneStep,
  type LaneJobTables,
  type LaneStepResult,
  scheduleLaneJob,
  settleLaneJob,
} from '../lanes/lifecycle-jobs.ts';
import type { BaseLaunchFields, BaseLaunchStatus } from './launch-store.ts';

/** Statuses whose step the lifecycle worker runs; from authorized on (and while awaiting a signature) the tracker polls. */
export const workerStatuses: readonly BaseLaunchStatus[] = [
  'received',
  'validating',
  'pending_review',
  'funding_authorization_verified',
  'prepared',
  'simulating',
];

/** The base-layer lane's tables (src/store/migrations.ts, version 12). */
export const baseJobTables: LaneJobTables = {
  launches: 'v3_launches',
  transitions: 'v3_launch_transitions',
  jobs: 'v3_lifecycle_jobs',
};

/** A job the worker holds under its lease, with the status its step is for. */
export type ClaimedBaseJob = ClaimedLaneJob<BaseLaunchStatus>;

/** What one base-layer step concluded (a move, a wait or a retry). */
export type BaseStepResult = LaneStepResult<BaseLaunchStatus, BaseLaunchFields>;

/** Claims one due job of v3_lifecycle_jobs under a lease (claimLaneJob); null when nothing is due. */
export function claimBaseJob(db: Db, workerId: string, nowMs: number, leaseMs: number): ClaimedBaseJob | null {
  return claimLaneJob(db, baseJobTables, workerStatuses, { workerId, nowMs, leaseMs });
}

/** Commits a step's outcome while the worker still holds the job's lease (commitLaneStep). */
export function commitBaseStep(
  db: Db,
  job: ClaimedBaseJob,
  workerId: string,
  nowMs: number,
  result: BaseStepResult,
): boolean {
  return commitLaneStep(db, baseJobTables, job, { workerId, nowMs }, result);
}

/** Schedules a launch's job at once unless a step of it is running (scheduleLaneJob). */
export function scheduleBaseJob(db: Db, launchId: string, nowMs: number): void {
  scheduleLaneJob(db, baseJobTables, launchId, nowMs);
}

/** Records a status move made outside the worker's lease (the tracker): the job follows the new status. */
export function settleBaseJob(db: Db, launchId: string, state: 'idle' | 'done', nowMs: number): void {
  settleLaneJob(db, baseJobTables, launchId, state, nowMs);
}
