import type { Address, Hex } from 'viem';
import type { LaunchPermit, PermitAttester } from '../../chain/launch-permit.ts';
import { laneIntentBytesOf } from './launch-table.ts';

/** The permit's lifetime: the PermitAuthority's maximum, one hour. */
const permitLifetimeSeconds = 3600n;

/** What a lane's permit reads of its chain: the finalized checkpoint both providers agree on and the latest block. */
export interface LanePermitChain {
  agreedFinalizedCheckpoint(): Promise<{ number: bigint; hash: Hex }>;
  latestBlock(): Promise<{ timestamp: bigint }>;
  readonly deployment: { contracts: { permitAuthority: { address: Address } } };
}

/**
 * A fresh launch permit of a lane's launch and its attester's signature for the lane's PermitAuthority: the launch's
 * intent and wallet, the exact value, the finalized checkpoint both providers agree on, issued at the latest block's
 * time and valid for an hour of chain time (the PermitAuthority's maximum). Spec: permitExpiresAt of each lane's
 * resource schema (spec/schemas/custom-launch-resource.v3.schema.json, multi-role-resource.v2.schema.json).
 */
export async function signedLanePermit(
  chain: LanePermitChain,
  attester: PermitAttester,
  launch: { row: { launch_intent_hash: string; launch_wallet: string }; value: bigint; chainId: 1 | 4663 },
): Promise<{ permit: LaunchPermit; permitSignature: Hex }> {
  const [checkpoint, latest] = await Promise.all([chain.agreedFinalizedCheckpoint(), chain.latestBlock()]);
  const permit: LaunchPermit = {
    launchIntentHash: laneIntentBytesOf(launch.row),
    wallet: launch.row.launch_wallet as Address,
    value: launch.value,
    checkpointBlockNumber: checkpoint.number,
    checkpointBlockHash: checkpoint.hash,
    issuedAt: latest.timestamp,
    expiresAt: latest.timestamp + permitLifetimeSeconds,
  };
  const permitSignature = await attester.sign(
    chain.deployment.contracts.permitAuthority.address,
    permit,
    launch.chainId,
  );
  return { permit, permitSignature };
}

/**
 * The pool part of a lane router's LaunchParams (BaseLaunchRouter, MultiRoleLaunchRouter): the launch intent and the
 * request's liquidity (fee, tick spacing, initial sqrt price, the token supply placed), as the router's integers.
 */
export function lanePoolParamsOf(
  row: { launch_intent_hash: string },
  liquidity: { lpFee: number; tickSpacing: number; sqrtPriceX96: string; tokenSupply: string },
): { launchIntentHash: Hex; lpFee: number; tickSpacing: number; sqrtPriceX96: bigint; tokenSupply: bigint } {
  return {
    launchIntentHash: laneIntentBytesOf(row),
    lpFee: liquidity.lpFee,
    tickSpacing: liquidity.tickSpacing,
    sqrtPriceX96: BigInt(liquidity.sqrtPriceX96),
    tokenSupply: BigInt(liquidity.tokenSupply),
  };
}
