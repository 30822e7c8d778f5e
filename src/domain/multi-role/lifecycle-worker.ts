import { statement } from '../../store/statements.ts';
import { LaneLifecycleWorker, type LaneWorkerOptions } from '../lanes/lifecycle-worker.ts';
import { type MultiRoleLaunchFields, type MultiRoleLaunchStatus, multiRoleLaunchRow } from './launch-store.ts';
import type { MultiRoleLifecycleContext } from './lifecycle-context.ts';
import {
  type ClaimedMultiRoleJob,
  type MultiRoleStepResult,
  multiRoleJobTables,
  multiRoleWorkerStatuses,
} from './lifecycle-jobs.ts';
import {
  multiRoleChainNotConfiguredCode,
  multiRoleSimulatingStep,
  multiRoleValidatingStep,
} from './lifecycle-steps.ts';

/**
 * The durable lifecycle worker of the shared (MultiRole V2) lane, from `received` to `authorized`
 * (spec/schemas/multi-role-resource.v2.schema.json, the statuses and their moves), on the lane-neutral worker
 * (src/domain/lanes/lifecycle-worker.ts) over multi_role_lifecycle_jobs and multi_role_launch_transitions: a killed
 * process resumes every launch where it stood, and no step is applied twice. Steps: validating (pinned rebuild,
 * admission review with its chain checks) and simulating (the exact wallet transaction with a fresh permit, its
 * eth_call and gas budget). Provider failures are transient: the status stays and the step retries with backoff.
 */
export class MultiRoleLifecycleWorker extends LaneLifecycleWorker<MultiRoleLaunchStatus, MultiRoleLaunchFields> {
  constructor(
    private readonly ctx: MultiRoleLifecycleContext,
    options: LaneWorkerOptions,
  ) {
    super(
      {
        name: 'shared-lane',
        tables: multiRoleJobTables,
        workerStatuses: multiRoleWorkerStatuses,
        db: ctx.db,
        now: ctx.now,
      },
      options,
    );
  }

  /**
   * Runs jobs until stopped (returns the stop function). A process that has chain 4663 and the permit attester first
   * wakes the launches an earlier process left waiting without them (CHAIN_NOT_CONFIGURED).
   */
  override start(): () => Promise<void> {
    if (this.ctx.chain && this.ctx.attester) {
      const nowMs = this.ctx.now();
      statement(
        this.ctx.db,
        `UPDATE multi_role_lifecycle_jobs SET state = 'scheduled', next_attempt_ms = ?, last_error_code = NULL,
           updated_at = ? WHERE state = 'idle' AND last_error_code = ?`,
      ).run(nowMs, new Date(nowMs).toISOString(), multiRoleChainNotConfiguredCode);
    }
    return super.start();
  }

  protected async step(job: ClaimedMultiRoleJob): Promise<MultiRoleStepResult> {
    const row = multiRoleLaunchRow(this.ctx.db, job.launchId);
    if (!row) throw new Error(`shared-lane launch ${job.launchId} has no row`);
    switch (job.status) {
      case 'validating':
        return multiRoleValidatingStep(this.ctx, row);
      case 'simulating':
        return multiRoleSimulatingStep(this.ctx, row);
      default:
        return { kind: 'wait', code: null };
    }
  }
}
