import type { Hex } from 'viem';
import { setTrackerLag, type WorkerLane } from '../../observability/metrics.ts';
import { statement } from '../../store/statements.ts';
import { pollUntilStopped } from '../lifecycle/poll-loop.ts';
import { classifyStepFailure } from '../lifecycle/retry-policy.ts';
import type { LaneTables } from './launch-table.ts';
import { recordLanePoll } from './lifecycle-jobs.ts';
import type { LaneStamp, LaneTrackedChain, LaneTrackedRow, LaneTrackerContext, TrackedLane } from './tracker-commit.ts';
import { LanePoll } from './tracker-poll.ts';
import { laneSearchCursor } from './tracker-submission.ts';

/** The lane and chain a tracker's lag is labelled with, by its launch table. */
const lagLabels: Record<LaneTables['launches'], [WorkerLane, string]> = {
  launches: ['v4', '4663'],
  v3_launches: ['v3', '1'],
  multi_role_launches: ['multi-role', '4663'],
};

/**
 * The poll loop of a lane's tracker (the base-layer V3 lane, the shared MultiRole V2 lane): every poll reads the
 * lane's launches in its tracked statuses, oldest first, and follows each (`follow`, given by the lane) over one
 * LanePoll, which reads the chain once for all of them (the head, the finalized height, each block hash once per
 * height, the new blocks once for every `authorized` launch searched). It reads the chain only by polling and never
 * signs or sends. A failed follow shows its transient code on the launch's job (a good one clears it) and never
 * changes a status by itself; the poll's cursor advances and job records are written in one transaction.
 */
export abstract class LaneTracker<Row extends LaneTrackedRow, Stamp extends LaneStamp> {
  constructor(
    private readonly base: {
      name: string;
      ctx: LaneTrackerContext<LaneTrackedChain<Stamp>>;
      lane: TrackedLane<Row, Stamp>;
      trackedStatuses: readonly string[];
    },
  ) {}

  /** Follows one tracked launch over the poll's shared chain reads. */
  protected abstract follow(row: Row, poll: LanePoll<Stamp>): Promise<void>;

  /** One poll over every tracked launch. Resolves the number of launches examined; throws the first failure. */
  async tick(): Promise<number> {
    const { ctx, lane, trackedStatuses } = this.base;
    const { tables } = lane;
    const rows = statement(
      ctx.db,
      `SELECT * FROM ${tables.launches} WHERE status IN (${trackedStatuses.map(() => '?').join(', ')}) ORDER BY seq`,
    ).all(...trackedStatuses) as Row[];
    const cursors: bigint[] = [];
    for (const row of rows) {
      if (row.status !== 'authorized') continue;
      // A row whose cursor cannot be read fails in its own follow, with the same error.
      try {
        cursors.push(laneSearchCursor(lane, row));
      } catch {}
    }
    const poll = new LanePoll(ctx.chain, cursors, ctx.maxBlocksPerPoll, (data: Hex) => {
      return lane.permitOf(data)?.launchIntentHash ?? null;
    });
    const outcomes: Array<[string, string | null]> = [];
    let failed: unknown;
    for (const row of rows) {
      try {
        await this.follow(row, poll);
        outcomes.push([row.launch_id, null]);
      } catch (err) {
        outcomes.push([row.launch_id, classifyStepFailure(err).code]);
        failed ??= err;
      }
    }
    const nowMs = ctx.now();
    ctx.db
      .transaction(() => {
        poll.writeAdvances(ctx.db, tables);
        for (const [launchId, code] of outcomes) recordLanePoll(ctx.db, tables, launchId, code, nowMs);
      })
      .immediate();
    const lag = poll.lagBlocks(cursors.length);
    if (lag !== null) setTrackerLag(...lagLabels[tables.launches], lag);
    if (failed !== undefined) throw failed;
    return rows.length;
  }

  /** Polls every `pollMs` until stopped. Returns the stop function, after which this process reports no lag. */
  start(pollMs: number): () => Promise<void> {
    const stop = pollUntilStopped(`${this.base.name} tracker poll`, () => this.tick(), pollMs);
    return async () => {
      await stop();
      setTrackerLag(...lagLabels[this.base.lane.tables.launches], null);
    };
  }
}
