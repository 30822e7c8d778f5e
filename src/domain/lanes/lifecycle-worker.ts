import { redactKeys } from '../../auth/keys.ts';
import type { Config } from '../../config.ts';
import { logger } from '../../observability/logger.ts';
import { countLifecycleRetry, type WorkerLane } from '../../observability/metrics.ts';
import type { Db } from '../../store/db.ts';
import { ClaimedJobs, claimBatchSize } from '../lifecycle/job-claims.ts';
import { pollUntilStopped } from '../lifecycle/poll-loop.ts';
import { backoffDelayMs, classifyStepFailure } from '../lifecycle/retry-policy.ts';
import {
  type ClaimedLaneJob,
  claimLaneJobs,
  commitLaneStep,
  type LaneFields,
  type LaneJobTables,
  type LaneStepResult,
} from './lifecycle-jobs.ts';

/** The lane a worker's retries are counted under (custom_launch_lifecycle_retries_total), by its jobs table. */
const metricLanes: Record<LaneJobTables['jobs'], WorkerLane> = {
  v3_lifecycle_jobs: 'v3',
  multi_role_lifecycle_jobs: 'multi-role',
};

/** A lane's worker: its name in logs, its tables, the statuses whose step it runs, its store and clock. */
export interface LaneWorkerLane<S extends string> {
  name: string;
  tables: LaneJobTables;
  workerStatuses: readonly S[];
  db: Db;
  now: () => number;
}

/** The worker's identity, lifecycle timings and the backoff's jitter source. */
export interface LaneWorkerOptions {
  workerId: string;
  lifecycle: Pick<Config['lifecycle'], 'leaseMs' | 'pollMs' | 'stepDelayMs' | 'backoffBaseMs' | 'backoffMaxMs'>;
  /** The backoff's jitter source, in [0, 1) (Math.random unless a test fixes it). */
  random?: () => number;
}

/**
 * The durable lifecycle worker of a lane with its own jobs table (the base-layer V3 lane, the shared MultiRole V2
 * lane): it claims up to claimBatchSize due jobs under their leases in one transaction (ClaimedJobs runs them one a
 * tick and renews the leases of those still waiting), runs the step of the launch's status outside any transaction
 * (`step`, given by the lane), and commits the outcome only while it still holds the lease (commitLaneStep), each
 * status change one transition row. A process killed mid-step loses nothing, and a step taken over after its lease
 * expired is never applied twice. A step that throws is a transient failure: the status stays and the job retries
 * with capped, jittered exponential backoff (retry-policy.ts), its code shown as the job's last error.
 */
export abstract class LaneLifecycleWorker<S extends string, F extends LaneFields> {
  private readonly claimed: ClaimedJobs<ClaimedLaneJob<S>>;

  constructor(
    private readonly lane: LaneWorkerLane<S>,
    private readonly options: LaneWorkerOptions,
  ) {
    this.claimed = new ClaimedJobs(lane.db, lane.tables.jobs, {
      workerId: options.workerId,
      leaseMs: options.lifecycle.leaseMs,
    });
  }

  /** The step of a claimed job's status. */
  protected abstract step(job: ClaimedLaneJob<S>): Promise<LaneStepResult<S, F>>;

  /** Runs the step of one claimed job, claiming a batch when none waits. Resolves false when none was due. */
  async tick(): Promise<boolean> {
    const { lane, options } = this;
    const nowMs = lane.now();
    const job = this.claimed.next(nowMs, () =>
      claimLaneJobs(lane.db, lane.tables, lane.workerStatuses, {
        workerId: options.workerId,
        nowMs,
        leaseMs: options.lifecycle.leaseMs,
        limit: claimBatchSize,
      }),
    );
    if (!job) return false;
    if (options.lifecycle.stepDelayMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, options.lifecycle.stepDelayMs));
    }
    let result: LaneStepResult<S, F>;
    try {
      result = await this.step(job);
    } catch (err) {
      result = this.retry(job, err);
    }
    commitLaneStep(lane.db, lane.tables, job, { workerId: options.workerId, nowMs: lane.now() }, result);
    return true;
  }

  /** Runs jobs until stopped, polling when idle. Returns the stop function, which releases the unstarted jobs. */
  start(): () => Promise<void> {
    const stop = pollUntilStopped(
      `${this.lane.name} lifecycle tick`,
      () => this.tick(),
      this.options.lifecycle.pollMs,
      (worked) => worked === true,
    );
    return async () => {
      await stop();
      this.claimed.release(this.lane.now());
    };
  }

  private retry(job: ClaimedLaneJob<S>, err: unknown): LaneStepResult<S, F> {
    const { code } = classifyStepFailure(err);
    logger.error(
      {
        launchId: job.launchId,
        status: job.status,
        attempt: job.attempt,
        code,
        detail: redactKeys(String(err)).slice(0, 500),
      },
      `${this.lane.name} lifecycle step failed`,
    );
    const { backoffBaseMs, backoffMaxMs } = this.options.lifecycle;
    const delayMs = backoffDelayMs(job.attempt, { baseMs: backoffBaseMs, maxMs: backoffMaxMs }, this.options.random);
    countLifecycleRetry(metricLanes[this.lane.tables.jobs], code);
    return { kind: 'retry', code, delayMs };
  }
}
