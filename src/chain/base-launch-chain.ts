import {
  type Address,
  createPublicClient,
  decodeFunctionData,
  encodeFunctionData,
  type Hex,
  http,
  keccak256,
  type PublicClient,
  parseEventLogs,
} from 'viem';
import { baseLaunchRouterAbi, devnetUsdAbi } from '../../generated/contracts/abis.ts';
import type { BaseDeployment } from './base-deployment.ts';
import { chain1 } from './chain.ts';
import { isExecutionRevert, ProviderDisagreement } from './chain-failure.ts';
import { fundingTokenReader, type TokenEip712Domain, type ViemFundingToken } from './funding-token.ts';
import type { Checkpoint } from './launch-chain.ts';
import { type ObservedTransaction, observedTransactionOf } from './launch-observer.ts';
import type { LaunchPermit } from './launch-permit.ts';
import { describeRevert, revertDataOf } from './revert.ts';

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
export interface BaseCall {
  from: Address;
  to: Address;
  value: bigint;
  data: Hex;
}

/** What eth_call of the exact transaction returned: its gas, or the EVM's decoded revert. */
export type BaseSimulation = { ok: true; gasUsed: bigint } | { ok: false; revert: string };

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
  try {
    const { functionName, args } = decodeFunctionData({ abi: baseLaunchRouterAbi, data });
    if (functionName !== 'launch') return null;
    return args[2] as LaunchPermit;
  } catch {
    return null;
  }
}

/**
 * What chain 1 says for the base-layer (V3) lane, read through both providers: the finalized checkpoint they agree
 * on, the latest block, the exact wallet transaction's eth_call, the router's LaunchStamped events and their
 * transactions, block hashes, and the EIP-3009 token's domain and authorization state. It reads; it decides nothing,
 * signs nothing and sends nothing. A provider that does not answer throws viem's error; providers that disagree (with
 * each other or with the bound deployment) throw ProviderDisagreement.
 */
export class BaseLaunchChain {
  private readonly clients: readonly [PublicClient, PublicClient];
  private readonly token: ViemFundingToken;

  constructor(
    rpcUrls: readonly string[],
    readonly deployment: BaseDeployment,
  ) {
    if (rpcUrls.length !== 2) throw new Error('the base-layer chain needs two CHAIN_1_RPC_URLS');
    this.clients = rpcUrls.map((url) =>
      createPublicClient({ chain: chain1(url), transport: http(url, { retryCount: 1, timeout: 20_000 }) }),
    ) as unknown as readonly [PublicClient, PublicClient];
    this.token = fundingTokenReader(rpcUrls[0] as string);
  }

  /** The lane's router. */
  get router(): Address {
    return this.deployment.contracts.launchRouter.address;
  }

  /**
   * Both providers serve chain 1 with the bound router and permit authority code; then the lower of their finalized
   * heights, with the same hash on both.
   */
  async agreedFinalizedCheckpoint(): Promise<Checkpoint> {
    await this.checkBoundCode();
    const number = await this.finalizedHeight();
    const hash = await this.agreedBlockHash(number);
    if (!hash) throw new ProviderDisagreement(`providers disagree on the hash of finalized block ${number}`);
    return { number, hash };
  }

  /** The lower of the two providers' `finalized` block numbers. */
  async finalizedHeight(): Promise<bigint> {
    const heads = await Promise.all(this.clients.map((c) => c.getBlock({ blockTag: 'finalized' })));
    // The lowest finalized head: a block counts as final only where every provider says so (bigint: no Math.min).
    let lowest = heads[0]?.number ?? 0n;
    for (const head of heads) if (head.number < lowest) lowest = head.number;
    return lowest;
  }

  /** The first provider's latest block: number, hash and timestamp (chain time, seconds). */
  async latestBlock(): Promise<Checkpoint & { timestamp: bigint }> {
    const latest = await this.clients[0].getBlock({ blockTag: 'latest' });
    return { number: latest.number, hash: latest.hash, timestamp: latest.timestamp };
  }

  /** The block hash at a height on both providers: null when either has no block there or they disagree. */
  async agreedBlockHash(number: bigint): Promise<Hex | null> {
    const hashes = await Promise.all(
      this.clients.map((c) =>
        c
          .getBlock({ blockNumber: number })
          .then((b) => b.hash as Hex)
          .catch(() => null),
      ),
    );
    return hashes[0] && hashes.every((h) => h === hashes[0]) ? hashes[0] : null;
  }

  /**
   * eth_call, then eth_estimateGas, of exactly `call` at the latest block of the first provider, without state
   * overrides: the wallet's balance and the funding token's state are part of what is checked. Only an EVM revert is
   * a result; a provider that did not answer throws.
   */
  async simulate(call: BaseCall): Promise<BaseSimulation> {
    const request = { account: call.from, to: call.to, data: call.data, value: call.value };
    try {
      await this.clients[0].call(request);
      return { ok: true, gasUsed: await this.clients[0].estimateGas(request) };
    } catch (err) {
      if (!isExecutionRevert(err)) throw err;
      return { ok: false, revert: describeRevert(revertDataOf(err)) };
    }
  }

  /** The router's LaunchStamped events for one launch intent in blocks [from, to], each with its transaction. */
  async stamps(launchIntentHash: Hex, from: bigint, to: bigint): Promise<BaseStamp[]> {
    const logs = await this.clients[0].getLogs({ address: this.router, fromBlock: from, toBlock: to });
    const found: BaseStamp[] = [];
    for (const log of parseEventLogs({ abi: baseLaunchRouterAbi, logs, eventName: 'LaunchStamped' })) {
      if (log.args.launchIntentHash.toLowerCase() !== launchIntentHash.toLowerCase()) continue;
      const transaction = await this.transaction(log.transactionHash);
      if (!transaction) continue;
      found.push({ transaction, token: log.args.token, hook: log.args.hook, poolId: log.args.poolId });
    }
    return found;
  }

  /** Mined transactions from `wallet` to the router in blocks [from, to] (block by block). */
  async walletTransactions(wallet: Address, from: bigint, to: bigint): Promise<ObservedTransaction[]> {
    const found: ObservedTransaction[] = [];
    for (let n = from; n <= to; n++) {
      const block = await this.clients[0].getBlock({ blockNumber: n, includeTransactions: true });
      for (const tx of block.transactions) {
        if (tx.from.toLowerCase() !== wallet.toLowerCase() || tx.to?.toLowerCase() !== this.router.toLowerCase())
          continue;
        const seen = observedTransactionOf(tx);
        if (seen) found.push(seen);
      }
    }
    return found;
  }

  /** Whether a mined transaction succeeded or reverted; null when it has no receipt. */
  async receiptStatus(hash: Hex): Promise<'success' | 'reverted' | null> {
    const receipt = await this.clients[0].getTransactionReceipt({ hash }).catch(() => null);
    return receipt?.status ?? null;
  }

  /** A mined transaction, or null when it is unknown or pending. */
  async transaction(hash: Hex): Promise<ObservedTransaction | null> {
    const tx = await this.clients[0].getTransaction({ hash }).catch(() => null);
    return tx ? observedTransactionOf(tx) : null;
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

  /** Both providers serve chain 1 with the bound runtime code at the router and the permit authority. */
  private async checkBoundCode(): Promise<void> {
    const { launchRouter, permitAuthority } = this.deployment.contracts;
    for (const [i, client] of this.clients.entries()) {
      const chainId = await client.getChainId();
      if (chainId !== 1) throw new ProviderDisagreement(`provider ${i + 1} serves chain ${chainId}, not 1`);
      for (const binding of [launchRouter, permitAuthority]) {
        const code = await client.getCode({ address: binding.address });
        if (keccak256(code ?? '0x') !== binding.runtimeCodeHash.toLowerCase()) {
          throw new ProviderDisagreement(`provider ${i + 1}: ${binding.address} does not hold the bound runtime code`);
        }
      }
    }
  }
}
