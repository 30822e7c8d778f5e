import { type Address, encodeFunctionData, type Hex, parseEventLogs } from 'viem';
import { baseLaunchRouterAbi, devnetUsdAbi } from '../../generated/contracts/abis.ts';
import type { BaseDeployment } from './base-deployment.ts';
import { chain1 } from './chain.ts';
import { fundingTokenReader, type TokenEip712Domain, type ViemFundingToken } from './funding-token.ts';
import {
  type LaneCall,
  LaneLaunchChain,
  type LaneSimulation,
  type LaneStampEvent,
  permitOfLaunchCalldata,
} from './lane-launch-chain.ts';
import type { ObservedTransaction } from './launch-observer.ts';
import type { LaunchPermit } from './launch-permit.ts';

/** The router's LaunchParams (contracts/base/BaseLaunchRouter.sol). */
export interface BaseLaunchParams {
  launchIntentHash: Hex;
  lpFee: number;
  tickSpacing: number;
  sqrtPriceX96: bigint;
  tokenSupply: bigint;
  liquidityNative: bigint;
  hookMask: number;
  tokenIndex: number;
  hookIndex: number;
  /** 255 for a router-primitive graph (no initializer). */
  initializerIndex: number;
  platformShareHundredthsBip: number;
}

/** One graph target as the router deploys it: its init code (creation code and constructor arguments) and salt. */
export interface BaseGraphTargetCode {
  initCode: Hex;
  salt: Hex;
}

/** The router's FundingAuthorization: token 0 (and empty fields) when the launch has no EIP-3009 funding. */
export interface BaseFundingAuthorization {
  token: Address;
  recipient: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
  signature: Hex;
}

/** The funding of a native launch: no token. */
export const noBaseFunding: BaseFundingAuthorization = {
  token: '0x0000000000000000000000000000000000000000',
  recipient: '0x0000000000000000000000000000000000000000',
  value: 0n,
  validAfter: 0n,
  validBefore: 0n,
  nonce: `0x${'0'.repeat(64)}`,
  signature: '0x',
};

/** A wallet transaction on chain 1: sender, target, value and calldata. */
export type BaseCall = LaneCall;

/** What eth_call of the exact transaction returned: its gas, or the EVM's decoded revert. */
export type BaseSimulation = LaneSimulation;

/** One LaunchStamped event of the router, with the transaction that emitted it. */
export interface BaseStamp {
  transaction: ObservedTransaction;
  token: Address;
  hook: Address;
  poolId: Hex;
}

/** The calldata of BaseLaunchRouter.launch (contracts/base/BaseLaunchRouter.sol). */
export function encodeBaseRouterLaunch(
  params: BaseLaunchParams,
  targets: readonly BaseGraphTargetCode[],
  permit: LaunchPermit,
  permitSignature: Hex,
  funding: BaseFundingAuthorization,
): Hex {
  return encodeFunctionData({
    abi: baseLaunchRouterAbi,
    functionName: 'launch',
    args: [params, targets, permit, permitSignature, funding],
  });
}

/** The permit in BaseLaunchRouter.launch calldata, or null when the data is not such a call. */
export function basePermitOfCalldata(data: Hex): LaunchPermit | null {
  return permitOfLaunchCalldata(baseLaunchRouterAbi, data);
}

/**
 * What chain 1 says for the base-layer (V3) lane, read through both providers (LaneLaunchChain of
 * src/chain/lane-launch-chain.ts: the finalized checkpoint they agree on, the latest block, the exact wallet
 * transaction's eth_call, block hashes, wallet transactions and receipts), plus the router's LaunchStamped events and
 * the EIP-3009 token's domain and authorization state. It reads; it decides nothing, signs nothing and sends nothing.
 */
export class BaseLaunchChain extends LaneLaunchChain {
  private readonly token: ViemFundingToken;

  constructor(
    rpcUrls: readonly string[],
    readonly deployment: BaseDeployment,
  ) {
    super({ lane: 'base-layer', chainId: 1, chainAt: chain1, rpcUrls, setting: 'CHAIN_1_RPC_URLS' });
    this.token = fundingTokenReader(rpcUrls[0] as string);
  }

  /** The lane's router. */
  get router(): Address {
    return this.deployment.contracts.launchRouter.address;
  }

  /** The router's LaunchStamped events for one launch intent in blocks [from, to], each with its transaction. */
  async stamps(launchIntentHash: Hex, from: bigint, to: bigint): Promise<BaseStamp[]> {
    return this.stampsOf(await this.stampEvents(from, to), launchIntentHash);
  }

  /** The router's LaunchStamped events of every launch intent in blocks [from, to] (one log query). */
  async stampEvents(from: bigint, to: bigint): Promise<Array<LaneStampEvent<BaseStamp>>> {
    const logs = parseEventLogs({
      abi: baseLaunchRouterAbi,
      logs: await this.routerLogs(from, to),
      eventName: 'LaunchStamped',
    });
    return logs.map((log) => ({
      launchIntentHash: log.args.launchIntentHash,
      transactionHash: log.transactionHash,
      blockNumber: log.blockNumber,
      withTransaction: (transaction) => ({
        transaction,
        token: log.args.token,
        hook: log.args.hook,
        poolId: log.args.poolId,
      }),
    }));
  }

  /** The EIP-712 domain of an EIP-3009 token on chain 1 (readEip712Domain of src/chain/funding-token.ts). */
  tokenDomain(token: Address): Promise<TokenEip712Domain> {
    return this.token.readEip712Domain(token);
  }

  /**
   * EIP-3009 authorizationState(authorizer, nonce) at `blockNumber` (the latest block unless named): true once used or
   * cancelled.
   */
  authorizationState(token: Address, authorizer: Address, nonce: Hex, blockNumber?: bigint): Promise<boolean> {
    if (blockNumber === undefined) return this.token.authorizationState(token, authorizer, nonce);
    return this.clients[0].readContract({
      address: token,
      abi: devnetUsdAbi,
      functionName: 'authorizationState',
      args: [authorizer, nonce],
      blockNumber,
    });
  }

  /** The router and the permit authority of the bound base deployment. */
  protected boundContracts() {
    return [this.deployment.contracts.launchRouter, this.deployment.contracts.permitAuthority];
  }
}
