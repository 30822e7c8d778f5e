import type { ClaimedLaneJob, LaneJobTables, LaneStepResult } from '../lanes/lifecycle-jobs.ts';
import type { MultiRoleLaunchFields, MultiRoleLaunchStatus } from './launch-store.ts';

/** Statuses whose step the shared lane's lifecycle worker runs; from authorized on the tracker polls. */
export const multiRoleWorkerStatuses: readonly MultiRoleLaunchStatus[] = ['received', 'validating', 'simulating'];

/** The shared lane's tables (src/store/migrations.ts, version 13). */
export const multiRoleJobTables: LaneJobTables = {
  launches: 'multi_role_launches',
  transitions: 'multi_role_launch_transitions',
  jobs: 'multi_role_lifecycle_jobs',
};

/** A shared-lane job the worker holds under its lease, with the status its step is for. */
export type ClaimedMultiRoleJob = ClaimedLaneJob<MultiRoleLaunchStatus>;

/** What one shared-lane step concluded (a move, a wait or a retry). */
export type MultiRoleStepResult = LaneStepResult<MultiRoleLaunchStatus, MultiRoleLaunchFields>;
