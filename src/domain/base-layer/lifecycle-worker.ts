import { LaneLifecycleWorker, type LaneWorkerOptions } from '../lanes/lifecycle-worker.ts';
import { type BaseLaunchFields, type BaseLaunchStatus, baseLaunchRow } from './launch-store.ts';
import type { BaseLifecycleContext } from './lifecycle-context.ts';
import { type BaseStepResult, baseJobTables, type ClaimedBaseJob, workerStatuses } from './lifecycle-jobs.ts';
import { pendingReviewStep, validatingStep } from './lifecycle-review-steps.ts';
import { preparedStep, simulatingStep, verifiedStep } from './lifecycle-transaction-steps.ts';

/**
 * The durable lifecycle worker of the base-layer (V3) lane, from `received` to `authorized`
 * (spec/schemas/custom-launch-resource.v3.schema.json, the statuses and their moves), on the lane-neutral worker
 * (src/domain/lanes/lifecycle-worker.ts) over v3_lifecycle_jobs and v3_launch_transitions. Steps: validating
 * (pinned rebuild, admission review), pending_review (current hard blocks, then the funding path),
 * funding_authorization_verified, prepared (the exact wallet transaction with a fresh permit) and simulating
 * (eth_call of exactly that transaction).
 */
export class BaseLayerLifecycleWorker extends LaneLifecycleWorker<BaseLaunchStatus, BaseLaunchFields> {
  constructor(
    private readonly ctx: BaseLifecycleContext,
    options: LaneWorkerOptions,
  ) {
    super({ name: 'base-layer', tables: baseJobTables, workerStatuses, db: ctx.db, now: ctx.now }, options);
  }

  protected async step(job: ClaimedBaseJob): Promise<BaseStepResult> {
    const row = baseLaunchRow(this.ctx.db, job.launchId);
    if (!row) throw new Error(`base-layer launch ${job.launchId} has no row`);
    switch (job.status) {
      case 'validating':
        return validatingStep(this.ctx, row);
      case 'pending_review':
        return pendingReviewStep(this.ctx, row);
      case 'funding_authorization_verified':
        return verifiedStep(this.ctx, row);
      case 'prepared':
        return preparedStep(this.ctx, row);
      case 'simulating':
        return simulatingStep(this.ctx, row);
      default:
        return { kind: 'wait', code: null };
    }
  }
}
