import { statement } from '../../store/statements.ts';
import { pollUntilStopped } from '../lifecycle/poll-loop.ts';
import { classifyStepFailure } from '../lifecycle/retry-policy.ts';
import type { BaseLaunchRow, BaseLaunchStatus } from './launch-store.ts';
import type { BaseTrackerContext } from './tracker-commit.ts';
import { followSubmitted } from './tracker-finality.ts';
import { checkFundingExpiry, findSubmission } from './tracker-submission.ts';

/** Statuses the tracker follows. */
export const trackedBaseStatuses: readonly BaseLaunchStatus[] = [
  'awaiting_funding_authorization',
  'authorized',
  'submitted',
];

/**
 * The base-layer (V3) tracker (spec/schemas/custom-launch-resource.v3.schema.json, from authorized on). It reads
 * chain 1 only by polling and never signs or sends. awaiting_funding_authorization: the window closing (now >=
 * validBefore) or the nonce used without the launch transaction → `cancelled`. authorized: the router's
 * LaunchStamped event for the launch intent from a transaction equal byte for byte to the bound walletTransaction →
 * `submitted` (chain evidence and public output from the event); a different transaction that stamped it → `failed`
 * WALLET_TRANSACTION_MISMATCH; a different launch call naming the intent that did not stamp leaves the launch
 * authorized with WALLET_TRANSACTION_MISMATCH among its finding codes; the exact bytes reverted → `failed`
 * WALLET_TRANSACTION_REVERTED; the funding window closing → `cancelled`; the
 * permit expiring by chain time → `failed` LAUNCH_PERMIT_EXPIRED. submitted: the block hash re-read on both providers
 * (a mismatch is a reorg: back to `authorized`), then `finalized` once the block is at or below both providers'
 * `finalized` tag, which writes the v3_finalized_feed row.
 */
export class BaseLayerTracker {
  constructor(private readonly ctx: BaseTrackerContext) {}

  /** One poll over every tracked launch. Resolves the number of launches examined; throws the first failure. */
  async tick(): Promise<number> {
    const rows = statement(
      this.ctx.db,
      `SELECT * FROM v3_launches WHERE status IN (${trackedBaseStatuses.map(() => '?').join(', ')}) ORDER BY seq`,
    ).all(...trackedBaseStatuses) as BaseLaunchRow[];
    let failed: unknown;
    for (const row of rows) {
      try {
        await this.follow(row);
        this.recordPoll(row.launch_id, null);
      } catch (err) {
        this.recordPoll(row.launch_id, err);
        failed ??= err;
      }
    }
    if (failed !== undefined) throw failed;
    return rows.length;
  }

  /** Polls every `pollMs` until stopped. Returns the stop function. */
  start(pollMs: number): () => Promise<void> {
    return pollUntilStopped('base-layer tracker poll', () => this.tick(), pollMs);
  }

  private async follow(row: BaseLaunchRow): Promise<void> {
    if (row.status === 'awaiting_funding_authorization') {
      await checkFundingExpiry(this.ctx, row, null);
      return;
    }
    if (row.status === 'authorized') return findSubmission(this.ctx, row);
    if (row.status === 'submitted') return followSubmitted(this.ctx, row);
  }

  /** A failed poll shows its transient code on the job; a good poll clears it. The status never changes here. */
  private recordPoll(launchId: string, err: unknown): void {
    statement(this.ctx.db, 'UPDATE v3_lifecycle_jobs SET last_error_code = ?, updated_at = ? WHERE launch_id = ?').run(
      err === null ? null : classifyStepFailure(err).code,
      new Date(this.ctx.now()).toISOString(),
      launchId,
    );
  }
}
