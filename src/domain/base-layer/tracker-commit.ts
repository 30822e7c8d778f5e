import type { Address } from 'viem';
import type { CustomLaunchCreateRequestV3, CustomLaunchFinalizedListV3 } from '../../../generated/types/service.ts';
import { type BaseLaunchChain, type BaseStamp, basePermitOfCalldata } from '../../chain/base-launch-chain.ts';
import { statement } from '../../store/statements.ts';
import {
  failLaneTracked,
  type LaneChainEvidence,
  type LaneTrackerContext,
  type TrackedLane,
} from '../lanes/tracker-commit.ts';
import { finalizedPublicLaunch, recordPublicLaunch } from '../public/public-launches.ts';
import { type BaseLaunchRow, terminalBaseStatuses } from './launch-store.ts';
import { baseJobTables } from './lifecycle-jobs.ts';

/** One item of the base-layer finalized feed (spec/schemas/custom-launch-finalized-list.v3.schema.json). */
export type BaseFinalizedItem = CustomLaunchFinalizedListV3['launches'][number];

/** What the base-layer tracker's steps read and write: chain 1 through BaseLaunchChain. */
export type BaseTrackerContext = LaneTrackerContext<BaseLaunchChain>;

/**
 * The base-layer lane as the lane-neutral tracker (src/domain/lanes/tracker-submission.ts) follows it: v3 tables,
 * BaseLaunchRouter.launch calldata, LaunchStamped's token, hook and pool id as the public output, and the
 * v3_finalized_feed row (FinalizedLaunch of spec/schemas/custom-launch-finalized-list.v3.schema.json).
 */
export const baseTrackedLane: TrackedLane<BaseLaunchRow, BaseStamp> = {
  tables: baseJobTables,
  terminalStatuses: terminalBaseStatuses,
  permitOf: basePermitOfCalldata,
  outputOf: (stamp) => ({
    tokenAddress: stamp.token.toLowerCase(),
    hookAddress: stamp.hook.toLowerCase(),
    poolId: stamp.poolId,
  }),
  tokenAddressOf: (row) => (JSON.parse(row.public_output_json ?? 'null') as { tokenAddress: Address }).tokenAddress,
  writeFinalized: (db, row, evidence: LaneChainEvidence, finalizedAt, decimals) => {
    const output = JSON.parse(row.public_output_json ?? 'null') as { tokenAddress: string; hookAddress: string };
    const item: BaseFinalizedItem = {
      launchId: row.launch_id,
      launchProfileVersion: row.profile_version,
      chainId: '1',
      tokenAddress: output.tokenAddress,
      hookAddress: output.hookAddress,
      transactionHash: evidence.transactionHash,
      blockNumber: evidence.blockNumber,
      finalizedAt,
    };
    statement(db, 'INSERT OR IGNORE INTO v3_finalized_feed (launch_id, item_json, finalized_at) VALUES (?, ?, ?)').run(
      row.launch_id,
      JSON.stringify(item),
      finalizedAt,
    );
    const request = JSON.parse(row.request_bytes.toString('utf8')) as CustomLaunchCreateRequestV3;
    // Profiles 3.0.0 and 3.1.0 may leave projectMetadata out: without a name and symbol the launch is not listed.
    if (!request.projectMetadata) return;
    recordPublicLaunch(
      db,
      finalizedPublicLaunch({
        lane: 'v3',
        launchId: row.launch_id,
        chainId: '1',
        tokenAddress: output.tokenAddress,
        projectMetadata: request.projectMetadata,
        decimals,
        evidence,
        finalizedAt,
      }),
    );
  },
};

/** Fails a tracked launch with a code, message and remediation. */
export function failTracked(
  ctx: BaseTrackerContext,
  row: BaseLaunchRow,
  to: 'failed' | 'cancelled',
  failure: { code: string; message: string; remediation: string },
): void {
  failLaneTracked(ctx, baseTrackedLane, row, to, failure);
}
