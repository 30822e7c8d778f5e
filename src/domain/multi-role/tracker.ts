import type { Address } from 'viem';
import type {
  MultiRoleCustomLaunchCreateRequestV2,
  MultiRoleCustomLaunchFinalizedListV2,
} from '../../../generated/types/service.ts';
import {
  type MultiRoleLaunchChain,
  type MultiRoleStamp,
  multiRolePermitOfCalldata,
} from '../../chain/multi-role-launch-chain.ts';
import { statement } from '../../store/statements.ts';
import { LaneTracker } from '../lanes/tracker.ts';
import type { LaneTrackerContext, TrackedLane } from '../lanes/tracker-commit.ts';
import type { LanePoll } from '../lanes/tracker-poll.ts';
import { findLaneSubmission, followLaneSubmitted } from '../lanes/tracker-submission.ts';
import { finalizedPublicLaunch, recordPublicLaunch } from '../public/public-launches.ts';
import { type MultiRoleLaunchRow, type MultiRoleLaunchStatus, terminalMultiRoleStatuses } from './launch-store.ts';
import { multiRoleJobTables } from './lifecycle-jobs.ts';

/** One item of the shared lane's finalized feed (spec/schemas/multi-role-finalized-list.v2.schema.json). */
export type MultiRoleFinalizedItem = MultiRoleCustomLaunchFinalizedListV2['launches'][number];

/** What the shared lane's tracker reads and writes: chain 4663 through MultiRoleLaunchChain. */
export type MultiRoleTrackerContext = LaneTrackerContext<MultiRoleLaunchChain>;

/** Statuses the shared lane's tracker follows. */
export const trackedMultiRoleStatuses: readonly MultiRoleLaunchStatus[] = ['authorized', 'submitted'];

/**
 * The shared lane as the lane-neutral tracker follows it: its tables, MultiRoleLaunchRouter.launch calldata, the
 * MultiRoleLaunchStamped event's token_hook and pool id as the public output (PublicOutput of
 * spec/schemas/multi-role-resource.v2.schema.json), and the multi_role_finalized_feed row (FinalizedLaunch of
 * spec/schemas/multi-role-finalized-list.v2.schema.json), never a row of the V4 feed.
 */
export const multiRoleTrackedLane: TrackedLane<MultiRoleLaunchRow, MultiRoleStamp> = {
  tables: multiRoleJobTables,
  terminalStatuses: terminalMultiRoleStatuses,
  permitOf: multiRolePermitOfCalldata,
  outputOf: (stamp) => ({ tokenHookAddress: stamp.tokenHook.toLowerCase(), poolId: stamp.poolId }),
  tokenAddressOf: (row) =>
    (JSON.parse(row.public_output_json ?? 'null') as { tokenHookAddress: Address }).tokenHookAddress,
  writeFinalized: (db, row, evidence, finalizedAt, decimals) => {
    const output = JSON.parse(row.public_output_json ?? 'null') as { tokenHookAddress: string; poolId: string };
    const item: MultiRoleFinalizedItem = {
      launchId: row.launch_id,
      chainId: '4663',
      launchWallet: row.launch_wallet,
      tokenHookAddress: output.tokenHookAddress,
      poolId: output.poolId,
      transactionHash: evidence.transactionHash,
      blockNumber: evidence.blockNumber,
      finalizedAt,
    };
    statement(
      db,
      `INSERT OR IGNORE INTO multi_role_finalized_feed (chain_id, launch_id, item_json, finalized_at)
         VALUES ('4663', ?, ?, ?)`,
    ).run(row.launch_id, JSON.stringify(item), finalizedAt);
    const request = JSON.parse(row.request_bytes.toString('utf8')) as MultiRoleCustomLaunchCreateRequestV2;
    recordPublicLaunch(
      db,
      finalizedPublicLaunch({
        lane: 'multi-role',
        launchId: row.launch_id,
        chainId: '4663',
        tokenAddress: output.tokenHookAddress,
        projectMetadata: request.projectMetadata,
        decimals,
        evidence,
        finalizedAt,
      }),
    );
  },
};

/**
 * The shared (MultiRole V2) lane's tracker (spec/schemas/multi-role-resource.v2.schema.json, from authorized on), on
 * the lane-neutral poll loop and steps (src/domain/lanes/tracker*.ts). It reads chain 4663 only by polling and never
 * signs or sends. authorized: the router's MultiRoleLaunchStamped for the launch intent from a transaction equal
 * byte for byte to the bound walletTransaction → `submitted` (publicOutput tokenHookAddress and poolId, chainEvidence);
 * another transaction that stamped it → `failed` WALLET_TRANSACTION_MISMATCH; the exact bytes reverted → `failed`
 * WALLET_TRANSACTION_REVERTED; chain time past the permit's expiry with every block searched → `failed`
 * LAUNCH_PERMIT_EXPIRED. submitted: the block hash re-read on both providers (a mismatch is a reorg: back to
 * `authorized`, the evidence cleared), then `finalized` once the block is at or below both providers' `finalized` tag,
 * which writes the multi_role_finalized_feed row.
 */
export class MultiRoleTracker extends LaneTracker<MultiRoleLaunchRow, MultiRoleStamp> {
  constructor(private readonly ctx: MultiRoleTrackerContext) {
    super({ name: 'shared-lane', ctx, lane: multiRoleTrackedLane, trackedStatuses: trackedMultiRoleStatuses });
  }

  protected async follow(row: MultiRoleLaunchRow, poll: LanePoll<MultiRoleStamp>): Promise<void> {
    if (row.status === 'authorized') return findLaneSubmission(this.ctx, multiRoleTrackedLane, row, poll);
    if (row.status === 'submitted') return followLaneSubmitted(this.ctx, multiRoleTrackedLane, row, poll);
  }
}
