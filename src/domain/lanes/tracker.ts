import { statement } from '../../store/statements.ts';
import { pollUntilStopped } from '../lifecycle/poll-loop.ts';
import { classifyStepFailure } from '../lifecycle/retry-policy.ts';
import { type LaneJobTables, recordLanePoll } from './lifecycle-jobs.ts';
import type { LaneTrackedRow, LaneTrackerContext } from './tracker-commit.ts';

/**
 * The poll loop of a lane's tracker (the base-layer V3 lane, the shared MultiRole V2 lane): every poll reads the
 * lane's launches in its tracked statuses, oldest first, and follows each (`follow`, given by the lane). It reads the
 * chain only by polling and never signs or sends. A failed follow shows its transient code on the launch's job (a
 * good one clears it) and never changes a status by itself.
 */
export abstract class LaneTracker<Row extends LaneTrackedRow> {
  constructor(
    private readonly base: {
      name: string;
      ctx: Pick<LaneTrackerContext<unknown>, 'db' | 'now'>;
      tables: LaneJobTables;
      trackedStatuses: readonly string[];
    },
  ) {}

  /** Follows one tracked launch. */
  protected abstract follow(row: Row): Promise<void>;

  /** One poll over every tracked launch. Resolves the number of launches examined; throws the first failure. */
  async tick(): Promise<number> {
    const { ctx, tables, trackedStatuses } = this.base;
    const rows = statement(
      ctx.db,
      `SELECT * FROM ${tables.launches} WHERE status IN (${trackedStatuses.map(() => '?').join(', ')}) ORDER BY seq`,
    ).all(...trackedStatuses) as Row[];
    let failed: unknown;
    for (const row of rows) {
      try {
        await this.follow(row);
        recordLanePoll(ctx.db, tables, row.launch_id, null, ctx.now());
      } catch (err) {
        recordLanePoll(ctx.db, tables, row.launch_id, classifyStepFailure(err).code, ctx.now());
        failed ??= err;
      }
    }
    if (failed !== undefined) throw failed;
    return rows.length;
  }

  /** Polls every `pollMs` until stopped. Returns the stop function. */
  start(pollMs: number): () => Promise<void> {
    return pollUntilStopped(`${this.base.name} tracker poll`, () => this.tick(), pollMs);
  }
}
