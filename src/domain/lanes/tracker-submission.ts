import type { Hex } from 'viem';
import type { ObservedTransaction } from '../../chain/launch-observer.ts';
import { findingCodes } from '../launches/finding-codes.ts';
import { isExactTransaction } from '../lifecycle/tracker.ts';
import { laneIntentBytesOf } from './launch-table.ts';
import {
  addLaneTrackedFinding,
  commitLaneTracked,
  failLaneTracked,
  type LaneStamp,
  type LaneTrackedChain,
  type LaneTrackedRow,
  type LaneTrackerContext,
  laneBoundTransactionOf,
  type TrackedLane,
} from './tracker-commit.ts';
import type { LanePoll } from './tracker-poll.ts';

/**
 * Another check of an authorized launch once every block up to `head` was searched without its stamp (the base
 * layer's funding window): true when it ended the launch.
 */
export type LaneHeadCheck<Row> = (row: Row, head: { number: bigint; timestamp: bigint }) => Promise<boolean>;

/** The last block searched for a launch's stamp: its tracked_to_block, or the permit's checkpoint before any. */
export function laneSearchCursor<Row extends LaneTrackedRow>(
  lane: Pick<TrackedLane<Row, LaneStamp>, 'permitOf'>,
  row: Row,
): bigint {
  const permit = lane.permitOf(laneBoundTransactionOf(row).data as Hex);
  if (!permit) throw new Error(`launch ${row.launch_id}: the bound transaction is not a router launch call`);
  return BigInt(row.tracked_to_block ?? Number(permit.checkpointBlockNumber));
}

/**
 * authorized: searches the blocks after the last one searched (from the permit's checkpoint) up to the head, among
 * those the poll read once for every launch (LanePoll: at most maxBlocksPerPoll at a time), for the router's stamp of
 * the intent. The exact wallet transaction stamped it: `submitted` with its chain evidence and public output. Another
 * transaction stamped it: `failed` WALLET_TRANSACTION_MISMATCH. Then the wallet's other launch calls naming the intent
 * (noteOtherCalls); then, once every block up to the head was searched, `headCheck` and the permit's expiry by chain
 * time (`failed` LAUNCH_PERMIT_EXPIRED).
 */
export async function findLaneSubmission<Row extends LaneTrackedRow, Stamp extends LaneStamp>(
  ctx: LaneTrackerContext<LaneTrackedChain<Stamp>>,
  lane: TrackedLane<Row, Stamp>,
  row: Row,
  poll: LanePoll<Stamp>,
  headCheck?: LaneHeadCheck<Row>,
): Promise<void> {
  const exact = laneBoundTransactionOf(row);
  const permit = lane.permitOf(exact.data as Hex);
  if (!permit) throw new Error(`launch ${row.launch_id}: the bound transaction is not a router launch call`);
  const cursor = laneSearchCursor(lane, row);
  const head = await poll.head();
  const scan = await poll.scan();
  let searched = cursor;
  // A launch already searched past what this poll read waits for the poll that reaches its cursor.
  if (scan !== null && cursor < scan.to) {
    const intent = laneIntentBytesOf(row).toLowerCase() as Hex;
    for (const event of scan.stamps.get(intent) ?? []) {
      if (event.blockNumber <= cursor) continue;
      const tx = await ctx.chain.transaction(event.transactionHash);
      if (!tx) continue;
      submitted(ctx, lane, row, event.withTransaction(tx), scan.to);
      return;
    }
    const calls = (scan.calls.get(intent) ?? []).filter(
      (tx) => tx.blockNumber > cursor && tx.from.toLowerCase() === row.launch_wallet.toLowerCase(),
    );
    if (await noteOtherCalls(ctx, lane, row, calls)) return;
    poll.advance(row.launch_id, row.status, scan.to);
    searched = scan.to;
  }
  // Only once every block up to the head was searched: after an outage the exact transaction may lie further on.
  if (searched < head.number) return;
  if (headCheck && (await headCheck(row, head))) return;
  if (head.timestamp > permit.expiresAt) {
    failLaneTracked(ctx, lane, row, 'failed', {
      code: 'LAUNCH_PERMIT_EXPIRED',
      message: `The permit expired at ${new Date(Number(permit.expiresAt) * 1000).toISOString()} (chain time) before the exact wallet transaction was mined.`,
      remediation: findingCodes.LAUNCH_PERMIT_EXPIRED.obligation,
    });
  }
}

/**
 * The stamp of the launch's intent: from the exact wallet transaction, `submitted` with its evidence and public
 * output; from another transaction, `failed` WALLET_TRANSACTION_MISMATCH (the intent cannot be stamped again).
 */
function submitted<Row extends LaneTrackedRow, Stamp extends LaneStamp>(
  ctx: LaneTrackerContext<LaneTrackedChain<Stamp>>,
  lane: TrackedLane<Row, Stamp>,
  row: Row,
  stamp: Stamp,
  to: bigint,
): void {
  const tx = stamp.transaction;
  if (!isExactTransaction(tx, laneBoundTransactionOf(row))) {
    failLaneTracked(ctx, lane, row, 'failed', {
      code: 'WALLET_TRANSACTION_MISMATCH',
      message: `Transaction ${tx.hash} stamped this launch intent with other bytes than the exact wallet transaction.`,
      remediation:
        'The intent cannot be stamped again: submit a new request and broadcast its exact wallet transaction.',
    });
    return;
  }
  const evidence = { transactionHash: tx.hash, blockNumber: String(tx.blockNumber), blockHash: tx.blockHash };
  commitLaneTracked(ctx, lane, {
    row,
    to: 'submitted',
    fields: {
      chain_evidence_json: JSON.stringify(evidence),
      public_output_json: JSON.stringify(lane.outputOf(stamp)),
      tracked_to_block: Number(to),
    },
  });
}

/**
 * The wallet's launch calls naming this intent that did not stamp (`calls`, from the blocks searched): the exact
 * bytes reverted (`failed`, WALLET_TRANSACTION_REVERTED: the intent stays unstamped, but the wallet sent what it was
 * given); other bytes are never accepted (WALLET_TRANSACTION_MISMATCH among the finding codes) and the launch keeps
 * waiting. Returns true when the launch failed.
 */
async function noteOtherCalls<Row extends LaneTrackedRow, Stamp extends LaneStamp>(
  ctx: LaneTrackerContext<LaneTrackedChain<Stamp>>,
  lane: TrackedLane<Row, Stamp>,
  row: Row,
  calls: readonly ObservedTransaction[],
): Promise<boolean> {
  const exact = laneBoundTransactionOf(row);
  for (const tx of calls) {
    if (!isExactTransaction(tx, exact)) {
      addLaneTrackedFinding(ctx, lane.tables, row, 'WALLET_TRANSACTION_MISMATCH');
      continue;
    }
    if ((await ctx.chain.receiptStatus(tx.hash)) !== 'reverted') continue;
    failLaneTracked(ctx, lane, row, 'failed', {
      code: 'WALLET_TRANSACTION_REVERTED',
      message: `The exact wallet transaction ${tx.hash} reverted in block ${tx.blockNumber}.`,
      remediation: findingCodes.WALLET_TRANSACTION_REVERTED.obligation,
    });
    return true;
  }
  return false;
}

/**
 * submitted: re-reads the block hash at the transaction's height on both providers (a mismatch is a reorg: back to
 * `authorized` with CHAIN_REORG_DETECTED among the finding codes, the evidence and output cleared and the search
 * resumed below that block); once the block is at or below both providers' `finalized` tag, `finalized` with the
 * lane's feed row written in the same transaction.
 */
export async function followLaneSubmitted<Row extends LaneTrackedRow, Stamp extends LaneStamp>(
  ctx: LaneTrackerContext<LaneTrackedChain<Stamp>>,
  lane: TrackedLane<Row, Stamp>,
  row: Row,
  poll: LanePoll<Stamp>,
): Promise<void> {
  const evidence = row.chain_evidence_json
    ? (JSON.parse(row.chain_evidence_json) as { transactionHash: string; blockNumber: string; blockHash: string })
    : null;
  if (!evidence?.blockNumber || !evidence.blockHash)
    throw new Error(`launch ${row.launch_id}: submitted without evidence`);
  const height = BigInt(evidence.blockNumber);
  // Providers that disagree throw (transient, the status holds); another hash or no block on both is a reorg.
  const hash = await poll.blockHash(height);
  if (hash?.toLowerCase() !== evidence.blockHash.toLowerCase()) {
    const codes = JSON.parse(row.finding_codes_json) as string[];
    commitLaneTracked(ctx, lane, {
      row,
      to: 'authorized',
      fields: {
        chain_evidence_json: null,
        public_output_json: null,
        tracked_to_block: Number(height - 1n),
        finding_codes_json: JSON.stringify([...new Set([...codes, 'CHAIN_REORG_DETECTED'])].slice(-64)),
      },
    });
    return;
  }
  if ((await poll.finalizedHeight()) < height) return;
  if (!row.public_output_json) throw new Error(`launch ${row.launch_id}: submitted without public output`);
  // One chain read before the transaction: a commit never waits on a provider.
  const decimals = await ctx.chain.tokenDecimals(lane.tokenAddressOf(row));
  const finalizedAt = new Date(ctx.now()).toISOString();
  commitLaneTracked(ctx, lane, { row, to: 'finalized', fields: {} }, (db) =>
    lane.writeFinalized(db, row, evidence, finalizedAt, decimals),
  );
}
