import type { Address, Hex } from 'viem';
import { basePermitOfCalldata } from '../../chain/base-launch-chain.ts';
import { findingCodes } from '../launches/finding-codes.ts';
import { isExactTransaction } from '../lifecycle/tracker.ts';
import { baseLayerFindingCodes } from './finding-codes.ts';
import type { BaseLaunchRow } from './launch-store.ts';
import { intentBytesOf, walletOf } from './lifecycle-context.ts';
import { fundingExpiredCode, fundingWindowClosed, storedFundingOf } from './lifecycle-funding.ts';
import {
  addTrackedFinding,
  type BaseTrackerContext,
  boundTransactionOf,
  commitTracked,
  failTracked,
} from './tracker-commit.ts';

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
 * authorized: searches the blocks after the last one searched (from the permit's checkpoint) up to the head, at most
 * maxBlocksPerPoll at a time, for the router's LaunchStamped event of the intent; then the wallet's other launch calls
 * naming the intent; then the funding window and the permit's expiry.
 */
export async function findSubmission(ctx: BaseTrackerContext, row: BaseLaunchRow): Promise<void> {
  const exact = boundTransactionOf(row);
  const permit = basePermitOfCalldata(exact.data as Hex);
  if (!permit) throw new Error(`launch ${row.launch_id}: the bound transaction is not a router launch call`);
  const head = await ctx.chain.latestBlock();
  const from = BigInt(row.tracked_to_block ?? Number(permit.checkpointBlockNumber)) + 1n;
  const last = from + BigInt(ctx.maxBlocksPerPoll) - 1n;
  const to = head.number < last ? head.number : last;
  if (from <= to) {
    const intent = intentBytesOf(row);
    for (const stamp of await ctx.chain.stamps(intent, from, to)) {
      const tx = stamp.transaction;
      if (!isExactTransaction(tx, exact)) {
        failTracked(ctx, row, 'failed', {
          code: 'WALLET_TRANSACTION_MISMATCH',
          message: `Transaction ${tx.hash} stamped this launch intent with other bytes than the exact wallet transaction.`,
          remediation:
            'The intent cannot be stamped again: submit a new request and broadcast its exact wallet transaction.',
        });
        return;
      }
      const evidence = { transactionHash: tx.hash, blockNumber: String(tx.blockNumber), blockHash: tx.blockHash };
      const output = {
        tokenAddress: stamp.token.toLowerCase(),
        hookAddress: stamp.hook.toLowerCase(),
        poolId: stamp.poolId,
      };
      commitTracked(ctx, row, 'submitted', {
        chain_evidence_json: JSON.stringify(evidence),
        public_output_json: JSON.stringify(output),
        tracked_to_block: Number(to),
      });
      return;
    }
    if (await noteOtherCalls(ctx, row, intent, from, to)) return;
    ctx.db
      .prepare('UPDATE v3_launches SET tracked_to_block = ? WHERE launch_id = ? AND status = ?')
      .run(Number(to), row.launch_id, row.status);
  }
  // Only once every block up to the head was searched: after an outage the exact transaction may lie further on.
  if (to < head.number) return;
  if (await checkFundingExpiry(ctx, row, head)) return;
  if (head.timestamp > permit.expiresAt) {
    failTracked(ctx, row, 'failed', {
      code: 'LAUNCH_PERMIT_EXPIRED',
      message: `The permit expired at ${new Date(Number(permit.expiresAt) * 1000).toISOString()} (chain time) before the exact wallet transaction was mined.`,
      remediation: findingCodes.LAUNCH_PERMIT_EXPIRED.obligation,
    });
  }
}

/**
 * The wallet's launch calls naming this intent that did not stamp: the exact bytes reverted (`failed`,
 * WALLET_TRANSACTION_REVERTED: the intent stays unstamped, but the wallet sent what it was given); other bytes are never
 * accepted (WALLET_TRANSACTION_MISMATCH among the finding codes) and the launch keeps waiting. Returns true when the
 * launch failed.
 */
async function noteOtherCalls(
  ctx: BaseTrackerContext,
  row: BaseLaunchRow,
  intent: Hex,
  from: bigint,
  to: bigint,
): Promise<boolean> {
  const exact = boundTransactionOf(row);
  for (const tx of await ctx.chain.walletTransactions(walletOf(row), from, to)) {
    if (basePermitOfCalldata(tx.input)?.launchIntentHash.toLowerCase() !== intent.toLowerCase()) continue;
    if (!isExactTransaction(tx, exact)) {
      addTrackedFinding(ctx, row, 'WALLET_TRANSACTION_MISMATCH');
      continue;
    }
    if ((await ctx.chain.receiptStatus(tx.hash)) !== 'reverted') continue;
    failTracked(ctx, row, 'failed', {
      code: 'WALLET_TRANSACTION_REVERTED',
      message: `The exact wallet transaction ${tx.hash} reverted in block ${tx.blockNumber}.`,
      remediation: findingCodes.WALLET_TRANSACTION_REVERTED.obligation,
    });
    return true;
  }
  return false;
}
