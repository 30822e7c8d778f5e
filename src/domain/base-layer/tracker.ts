import type { BaseStamp } from '../../chain/base-launch-chain.ts';
import { LaneTracker } from '../lanes/tracker.ts';
import type { LanePoll } from '../lanes/tracker-poll.ts';
import { followLaneSubmitted } from '../lanes/tracker-submission.ts';
import type { BaseLaunchRow, BaseLaunchStatus } from './launch-store.ts';
import { type BaseTrackerContext, baseTrackedLane } from './tracker-commit.ts';
import { checkFundingExpiry, findSubmission } from './tracker-submission.ts';

/** Statuses the tracker follows. */
export const trackedBaseStatuses: readonly BaseLaunchStatus[] = [
  'awaiting_funding_authorization',
  'authorized',
  'submitted',
];

/**
 * The base-layer (V3) tracker (spec/schemas/custom-launch-resource.v3.schema.json, from authorized on), on the
 * lane-neutral poll loop and steps (src/domain/lanes/tracker*.ts). It reads chain 1 only by polling and never signs
 * or sends. awaiting_funding_authorization: the window closing (now >= validBefore) or the nonce used without the
 * launch transaction → `cancelled`. authorized: the router's LaunchStamped event for the launch intent from a
 * transaction equal byte for byte to the bound walletTransaction → `submitted` (chain evidence and public output from
 * the event); a different transaction that stamped it → `failed` WALLET_TRANSACTION_MISMATCH; a different launch call
 * naming the intent that did not stamp leaves the launch authorized with WALLET_TRANSACTION_MISMATCH among its finding
 * codes; the exact bytes reverted → `failed` WALLET_TRANSACTION_REVERTED; the funding window closing → `cancelled`;
 * the permit expiring by chain time → `failed` LAUNCH_PERMIT_EXPIRED. submitted: the block hash re-read on both
 * providers (a mismatch is a reorg: back to `authorized`), then `finalized` once the block is at or below both
 * providers' `finalized` tag, which writes the v3_finalized_feed row.
 */
export class BaseLayerTracker extends LaneTracker<BaseLaunchRow, BaseStamp> {
  constructor(private readonly ctx: BaseTrackerContext) {
    super({ name: 'base-layer', ctx, lane: baseTrackedLane, trackedStatuses: trackedBaseStatuses });
  }

  protected async follow(row: BaseLaunchRow, poll: LanePoll<BaseStamp>): Promise<void> {
    if (row.status === 'awaiting_funding_authorization') {
      await checkFundingExpiry(this.ctx, row, null);
      return;
    }
    if (row.status === 'authorized') return findSubmission(this.ctx, row, poll);
    if (row.status === 'submitted') return followLaneSubmitted(this.ctx, baseTrackedLane, row, poll);
  }
}
