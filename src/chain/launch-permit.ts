import { type Address, encodeFunctionData, type Hex } from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { launchStampRouterAbi } from '../../generated/contracts/abis.ts';
import type { CustomLaunchCreateRequestV4 } from '../../generated/types/service.ts';
import type { Checkpoint, GraphRoles } from './launch-chain.ts';

const zero32: Hex = `0x${'0'.repeat(64)}`;

/**
 * The EIP-712 domain and type of a launch permit, as contracts/PermitAuthority.sol verifies them on `chainId` (4663
 * for the V4 lanes, 1 for the base-layer lane: the same contract deployed on each chain).
 */
export function launchPermitTypedData(permitAuthority: Address, chainId: 4663 | 1 = 4663) {
  return {
    domain: { name: 'CustomLaunchPermitAuthority', version: '1', chainId, verifyingContract: permitAuthority },
    types: {
      LaunchPermit: [
        { name: 'launchIntentHash', type: 'bytes32' },
        { name: 'wallet', type: 'address' },
        { name: 'value', type: 'uint256' },
        { name: 'checkpointBlockNumber', type: 'uint256' },
        { name: 'checkpointBlockHash', type: 'bytes32' },
        { name: 'issuedAt', type: 'uint64' },
        { name: 'expiresAt', type: 'uint64' },
      ],
    },
    primaryType: 'LaunchPermit',
  } as const;
}

/** One launch permit: the message of launchPermitTypedData. */
export interface LaunchPermit {
  launchIntentHash: Hex;
  wallet: Address;
  value: bigint;
  checkpointBlockNumber: bigint;
  checkpointBlockHash: Hex;
  issuedAt: bigint;
  expiresAt: bigint;
}

/**
 * The permit for a request: bound to its launch intent hash, its wallet, the exact wallet transaction value and the
 * finalized checkpoint, issued at chain time and expiring within the requested window, at most one hour later.
 */
export function launchPermitFor(
  request: CustomLaunchCreateRequestV4,
  finalized: Checkpoint,
  issuedAt: bigint,
): LaunchPermit {
  return {
    launchIntentHash: `0x${request.launchIntentHash.slice('sha256:'.length)}` as Hex,
    wallet: request.launchWallet as Address,
    value: BigInt(
      request.profile === '4.1.0'
        ? request.fundingPlan.walletTransactionValueWei
        : request.funding.walletTransactionValueWei,
    ),
    checkpointBlockNumber: finalized.number,
    checkpointBlockHash: finalized.hash,
    issuedAt,
    expiresAt: issuedAt + BigInt(Math.min(request.permitWindow.lifetimeSeconds, 3600)),
  };
}

/** The permit attester: its key signs EIP-712 launch permits (attestations), never a transaction. */
export class PermitAttester {
  private readonly account: PrivateKeyAccount;

  constructor(key: Hex) {
    this.account = privateKeyToAccount(key);
  }

  /** The permit's EIP-712 signature for the permit authority at `permitAuthority` on `chainId` (4663 unless named). */
  sign(permitAuthority: Address, permit: LaunchPermit, chainId: 4663 | 1 = 4663): Promise<Hex> {
    return this.account.signTypedData({ ...launchPermitTypedData(permitAuthority, chainId), message: { ...permit } });
  }
}

/** The calldata of the router's `launch` for a request, its graph roles, the permit and the permit's signature. */
export function encodeRouterLaunch(
  request: CustomLaunchCreateRequestV4,
  roles: GraphRoles,
  permit: LaunchPermit,
  signature: Hex,
): Hex {
  const lm = request.liquidityModel;
  const funded = request.profile === '4.1.0' ? request.fundingPlan : null;
  return encodeFunctionData({
    abi: launchStampRouterAbi,
    functionName: 'launch',
    args: [
      {
        launchIntentHash: permit.launchIntentHash,
        lpFee: lm.lpFeePips,
        tickSpacing: lm.tickSpacing,
        sqrtPriceX96: BigInt(lm.initialSqrtPriceX96),
        tokenSupply: BigInt(lm.tokenLiquidityAmount),
        liquidityNative: BigInt(funded?.nativeAllocations.initialLiquidityWei ?? '0'),
        initialBuyNative: BigInt(funded?.nativeAllocations.initialBuyWei ?? '0'),
        minTokenOut: BigInt(funded?.initialBuy.minTokenOut ?? '0'),
        hookMask: roles.hook.hookPermissions.mask,
        tokenIndex: roles.tokenIndex,
        hookIndex: roles.hookIndex,
        initializerIndex: roles.initializerIndex,
      },
      request.graphBundle.targets.map((t) => ({
        runtimeCode: t.runtimeBytecode as Hex,
        salt: (t.create2Salt as Hex | undefined) ?? zero32,
      })),
      permit,
      signature,
    ],
  });
}
