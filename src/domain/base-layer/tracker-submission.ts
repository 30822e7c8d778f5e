import type { Address, Hex } from 'viem';
import type { BaseStamp } from '../../chain/base-launch-chain.ts';
import type { LanePoll } from '../lanes/tracker-poll.ts';
import { findLaneSubmission } from '../lanes/tracker-submission.ts';
import { baseLayerFindingCodes } from './finding-codes.ts';
import type { BaseLaunchRow } from './launch-store.ts';
import { walletOf } from './lifecycle-context.ts';
import { fundingExpiredCode, fundingWindowClosed, storedFundingOf } from './lifecycle-funding.ts';
import { type BaseTrackerContext, baseTrackedLane, failTracked } from './tracker-commit.ts';

/**
 * An unused funding authorization ends the launch in `cancelled` (V3_FUNDING_AUTHORIZATION_EXPIRED): its window
 * closed, or its nonce is used or cancelled on chain 1 without the launch transaction. Before the permit (no
 * `searched` block) the launch transaction cannot exist yet: the window closes by the clock (now >= validBefore) and
 * the nonce is read at the latest block. From authorized on, `searched` is the head the stamp search covered without
 * finding one: the window closes by that block's time (no later block can use the authorization) and the nonce is
 * read at that block, so a launch transaction mined after it is never mistaken for another use.
 */
export async function checkFundingExpiry(
  ctx: BaseTrackerContext,
  row: BaseLaunchRow,
  searched: { number: bigint; timestamp: bigint } | null,
): Promise<boolean> {
  const funding = storedFundingOf(row);
  const message = funding?.typedData?.message;
  if (!funding || !message) return false;
  const closed = searched ? searched.timestamp >= BigInt(message.validBefore) : fundingWindowClosed(funding, ctx.now());
  if (closed) {
    cancel(ctx, row, `The funding authorization's window closed at ${message.validBefore} (unix seconds), unused.`);
    return true;
  }
  const used = await ctx.chain.authorizationState(
    funding.token as Address,
    walletOf(row),
    message.nonce as Hex,
    searched?.number,
  );
  if (!used) return false;
  cancel(ctx, row, 'The funding authorization nonce was used or cancelled on chain 1 without the launch transaction.');
  return true;
}

function cancel(ctx: BaseTrackerContext, row: BaseLaunchRow, message: string): void {
  failTracked(ctx, row, 'cancelled', {
    code: fundingExpiredCode,
    message,
    remediation: baseLayerFindingCodes.V3_FUNDING_AUTHORIZATION_EXPIRED.obligation,
  });
}

/**
 * authorized: the lane-neutral search for the exact transaction's stamp (findLaneSubmission), with the funding
 * window and nonce checked once every block up to the head was searched.
 */
export function findSubmission(ctx: BaseTrackerContext, row: BaseLaunchRow, poll: LanePoll<BaseStamp>): Promise<void> {
  return findLaneSubmission(ctx, baseTrackedLane, row, poll, (tracked, head) => checkFundingExpiry(ctx, tracked, head));
}
