import { redactKeys } from '../../auth/keys.ts';
import type { Config } from '../../config.ts';
import { pollUntilStopped } from '../lifecycle/poll-loop.ts';
import { backoffDelayMs, classifyStepFailure } from '../lifecycle/retry-policy.ts';
import { baseLaunchRow } from './launch-store.ts';
import type { BaseLifecycleContext } from './lifecycle-context.ts';
import { type BaseStepResult, type ClaimedBaseJob, claimBaseJob, commitBaseStep } from './lifecycle-jobs.ts';
import { pendingReviewStep, validatingStep } from './lifecycle-review-steps.ts';
import { preparedStep, simulatingStep, verifiedStep } from './lifecycle-transaction-steps.ts';

/**
 * The durable lifecycle worker of the base-layer (V3) lane, from `received` to `authorized`
 * (spec/schemas/custom-launch-resource.v3.schema.json, the statuses and their moves). Jobs live in
 * v3_lifecycle_jobs: the worker claims one due job under a lease, runs the step of the launch's status outside any
 * transaction, and commits the outcome only while it still holds the lease (commitBaseStep), each status change one
 * row of v3_launch_transitions (moveBaseLaunch). A process killed mid-step loses nothing, and a step taken over after
 * its lease expired is never applied twice. Steps: validating (pinned rebuild, admission review), pending_review
 * (current hard blocks, then the funding path), funding_authorization_verified, prepared (the exact wallet
 * transaction with a fresh permit) and simulating (eth_call of exactly that transaction). A transient failure keeps
 * the status and retries with capped, jittered exponential backoff (retry-policy.ts), its code shown as the job's
 * last error.
 */
export class BaseLayerLifecycleWorker {
  constructor(
    private readonly ctx: BaseLifecycleContext,
    private readonly options: {
      workerId: string;
      lifecycle: Pick<Config['lifecycle'], 'leaseMs' | 'pollMs' | 'stepDelayMs' | 'backoffBaseMs' | 'backoffMaxMs'>;
      /** The backoff's jitter source, in [0, 1) (Math.random unless a test fixes it). */
      random?: () => number;
    },
  ) {}

  /** Claims one due job and runs its step. Resolves false when no job was due. */
  async tick(): Promise<boolean> {
    const { ctx, options } = this;
    const job = claimBaseJob(ctx.db, options.workerId, ctx.now(), options.lifecycle.leaseMs);
    if (!job) return false;
    if (options.lifecycle.stepDelayMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, options.lifecycle.stepDelayMs));
    }
    let result: BaseStepResult;
    try {
      result = await this.step(job);
    } catch (err) {
      result = this.retry(job, err);
    }
    commitBaseStep(ctx.db, job, options.workerId, ctx.now(), result);
    return true;
  }

  /** Runs jobs until stopped, polling when idle. Returns the stop function. */
  start(): () => Promise<void> {
    return pollUntilStopped(
      'base-layer lifecycle tick',
      () => this.tick(),
      this.options.lifecycle.pollMs,
      (worked) => worked === true,
    );
  }

  private async step(job: ClaimedBaseJob): Promise<BaseStepResult> {
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

  private retry(job: ClaimedBaseJob, err: unknown): BaseStepResult {
    const { code } = classifyStepFailure(err);
    console.error(
      JSON.stringify({
        level: 'error',
        msg: 'base-layer lifecycle step failed',
        launchId: job.launchId,
        status: job.status,
        attempt: job.attempt,
        code,
        detail: redactKeys(String(err)).slice(0, 500),
      }),
    );
    const { backoffBaseMs, backoffMaxMs } = this.options.lifecycle;
    const delayMs = backoffDelayMs(job.attempt, { baseMs: backoffBaseMs, maxMs: backoffMaxMs }, this.options.random);
    return { kind: 'retry', code, delayMs };
  }
}
