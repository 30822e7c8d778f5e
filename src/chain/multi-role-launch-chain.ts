import { type Address, decodeFunctionResult, encodeFunctionData, type Hex, parseEventLogs } from 'viem';
import { multiRoleLaunchRouterAbi } from '../../generated/contracts/abis.ts';
import { multiRoleEconomicsAbi } from '../core/multi-role-graph.ts';
import { chain4663 } from './chain.ts';
import { isExecutionRevert } from './chain-failure.ts';
import { type CallbackVerdict, probeHookCallbacks } from './hook-probe.ts';
import {
  type LaneCall,
  LaneLaunchChain,
  type LaneSimulation,
  type LaneStampEvent,
  permitOfLaunchCalldata,
} from './lane-launch-chain.ts';
import type { ObservedTransaction } from './launch-observer.ts';
import type { LaunchPermit } from './launch-permit.ts';
import type { MultiRoleDeployment } from './multi-role-deployment.ts';
import { describeRevert, revertDataOf } from './revert.ts';

/** The router's LaunchParams (contracts/multi-role/MultiRoleLaunchRouter.sol). */
export interface MultiRoleLaunchParams {
  launchIntentHash: Hex;
  lpFee: number;
  tickSpacing: number;
  sqrtPriceX96: bigint;
  tokenSupply: bigint;
  liquidityNative: bigint;
  hookMask: number;
  tokenHookIndex: number;
  initializerIndex: number;
}

/** One graph target as the router deploys it: its init code (creation code and constructor arguments) and salt. */
export interface MultiRoleGraphTargetCode {
  initCode: Hex;
  salt: Hex;
}

/** A wallet transaction of the shared lane on chain 4663: sender, target, value and calldata. */
export type MultiRoleCall = LaneCall;

/** What eth_call of the exact transaction returned: its gas, or the EVM's decoded revert. */
export type MultiRoleSimulation = LaneSimulation;

/** One MultiRoleLaunchStamped event of the router, with the transaction that emitted it. */
export interface MultiRoleStamp {
  transaction: ObservedTransaction;
  tokenHook: Address;
  poolId: Hex;
}

/** What a token_hook's multiRoleEconomics() answers; rateMode 0 is additive, 1 inclusive (multiRoleRateModes). */
export interface MultiRoleEconomicsAnswer {
  totalSupply: bigint;
  rateMode: number;
  buyRateHundredthsBip: number;
  sellRateHundredthsBip: number;
  feeRecipient: Address;
}

/** The init code's constructor reverted in the creation eth_call: the code, not the provider, is at fault. */
export class InitCodeReverted extends Error {
  override readonly name = 'InitCodeReverted';
}

/** The calldata of MultiRoleLaunchRouter.launch (contracts/multi-role/MultiRoleLaunchRouter.sol). */
export function encodeMultiRoleRouterLaunch(
  params: MultiRoleLaunchParams,
  targets: readonly MultiRoleGraphTargetCode[],
  permit: LaunchPermit,
  permitSignature: Hex,
): Hex {
  return encodeFunctionData({
    abi: multiRoleLaunchRouterAbi,
    functionName: 'launch',
    args: [params, targets, permit, permitSignature],
  });
}

/** The permit in MultiRoleLaunchRouter.launch calldata, or null when the data is not such a call. */
export function multiRolePermitOfCalldata(data: Hex): LaunchPermit | null {
  return permitOfLaunchCalldata(multiRoleLaunchRouterAbi, data);
}

/**
 * What chain 4663 says for the shared (MultiRole V2) lane, read through both providers (LaneLaunchChain of
 * src/chain/lane-launch-chain.ts: the finalized checkpoint they agree on, the latest block, the exact wallet
 * transaction's eth_call, block hashes, wallet transactions and receipts), plus the router's MultiRoleLaunchStamped
 * events, the gas price, and two reads the admission review of spec/openapi/paths/multi-role-preflight.yaml needs: a
 * token_hook's runtime code as its constructor returns it and the economics that code answers. It reads; it decides
 * nothing, signs nothing and sends nothing.
 */
export class MultiRoleLaunchChain extends LaneLaunchChain {
  constructor(
    rpcUrls: readonly string[],
    readonly deployment: MultiRoleDeployment,
  ) {
    super({ lane: 'shared-lane', chainId: 4663, chainAt: chain4663, rpcUrls, setting: 'CHAIN_4663_RPC_URLS' });
  }

  /** The lane's router. */
  get router(): Address {
    return this.deployment.contracts.launchRouter.address;
  }

  /** The router's MultiRoleLaunchStamped events for one launch intent in blocks [from, to], each with its transaction. */
  async stamps(launchIntentHash: Hex, from: bigint, to: bigint): Promise<MultiRoleStamp[]> {
    return this.stampsOf(await this.stampEvents(from, to), launchIntentHash);
  }

  /** The router's MultiRoleLaunchStamped events of every launch intent in blocks [from, to] (one log query). */
  async stampEvents(from: bigint, to: bigint): Promise<Array<LaneStampEvent<MultiRoleStamp>>> {
    const logs = parseEventLogs({
      abi: multiRoleLaunchRouterAbi,
      logs: await this.routerLogs(from, to),
      eventName: 'MultiRoleLaunchStamped',
    });
    return logs.map((log) => ({
      launchIntentHash: log.args.launchIntentHash,
      transactionHash: log.transactionHash,
      blockNumber: log.blockNumber,
      withTransaction: (transaction) => ({ transaction, tokenHook: log.args.tokenHook, poolId: log.args.poolId }),
    }));
  }

  /**
   * The verdict of each enabled hook callback of a token_hook's runtime code placed at its address, probed on the
   * first provider (probeHookCallbacks of src/chain/hook-probe.ts), in flag order.
   */
  probeHookCallbacks(input: Parameters<typeof probeHookCallbacks>[1]): Promise<CallbackVerdict[]> {
    return probeHookCallbacks(this.clients[0], input);
  }

  /** The first provider's gas price (wei per gas). */
  gasPrice(): Promise<bigint> {
    return this.clients[0].getGasPrice();
  }

  /**
   * The runtime code `initCode`'s constructor returns, immutables filled: a creation eth_call from `from` (the lane's
   * graph factory deploys the graph) at the latest block. Throws InitCodeReverted when the constructor reverts or
   * returns no code; a provider that did not answer throws viem's error.
   */
  async deployedRuntimeCode(initCode: Hex, from: Address): Promise<Hex> {
    let data: Hex | undefined;
    try {
      ({ data } = await this.clients[0].call({ account: from, data: initCode }));
    } catch (err) {
      if (!isExecutionRevert(err)) throw err;
      throw new InitCodeReverted(`the init code's constructor reverted: ${describeRevert(revertDataOf(err))}`);
    }
    if (!data || data === '0x') throw new InitCodeReverted("the init code's constructor returned no code");
    return data;
  }

  /**
   * What multiRoleEconomics() answers with `runtimeCode` placed at `address` by a state override (no storage: only
   * constants and filled immutables decide it), at the latest block. Null when the call reverts or its answer does
   * not decode; a provider that did not answer throws viem's error.
   */
  async economicsOf(address: Address, runtimeCode: Hex): Promise<MultiRoleEconomicsAnswer | null> {
    let data: Hex | undefined;
    try {
      ({ data } = await this.clients[0].call({
        to: address,
        data: encodeFunctionData({ abi: multiRoleEconomicsAbi, functionName: 'multiRoleEconomics' }),
        stateOverride: [{ address, code: runtimeCode }],
      }));
    } catch (err) {
      if (isExecutionRevert(err)) return null;
      throw err;
    }
    try {
      const [totalSupply, rateMode, buyRateHundredthsBip, sellRateHundredthsBip, feeRecipient] = decodeFunctionResult({
        abi: multiRoleEconomicsAbi,
        functionName: 'multiRoleEconomics',
        data: data ?? '0x',
      });
      return { totalSupply, rateMode, buyRateHundredthsBip, sellRateHundredthsBip, feeRecipient };
    } catch {
      return null;
    }
  }

  /** The router and the permit authority of the bound shared-lane deployment. */
  protected boundContracts() {
    return [this.deployment.contracts.launchRouter, this.deployment.contracts.permitAuthority];
  }
}
