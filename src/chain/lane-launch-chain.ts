import {
  type Abi,
  type Address,
  BlockNotFoundError,
  type Chain,
  createPublicClient,
  decodeFunctionData,
  type Hex,
  keccak256,
  type Log,
  type PublicClient,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
} from 'viem';
import { isExecutionRevert, noneOn, ProviderDisagreement, sameOnBoth } from './chain-failure.ts';
import type { ContractBinding } from './deployment-document.ts';
import type { Checkpoint } from './launch-chain.ts';
import { blocksWithTransactions, type ObservedTransaction, observedTransactionOf } from './launch-observer.ts';
import type { LaunchPermit } from './launch-permit.ts';
import { providerTransport } from './provider-transport.ts';
import { describeRevert, revertDataOf } from './revert.ts';
import { readTokenDecimals } from './token-decimals.ts';

/** A wallet transaction of a lane: sender, target (the lane's router), value and calldata. */
export interface LaneCall {
  from: Address;
  to: Address;
  value: bigint;
  data: Hex;
}

/** What eth_call of the exact transaction returned: its gas, or the EVM's decoded revert. */
export type LaneSimulation = { ok: true; gasUsed: bigint } | { ok: false; revert: string };

/**
 * The permit of a lane router's `launch(params, targets, permit, permitSignature, …)` calldata under the router's
 * `abi`, or null when the data is not such a call.
 */
export function permitOfLaunchCalldata(abi: Abi, data: Hex): LaunchPermit | null {
  try {
    const { functionName, args } = decodeFunctionData({ abi, data });
    if (functionName !== 'launch') return null;
    return (args?.[2] ?? null) as LaunchPermit | null;
  } catch {
    return null;
  }
}

/** A router's stamp event of a launch intent, before its transaction is read (only for the launch it names). */
export interface LaneStampEvent<Stamp> {
  launchIntentHash: Hex;
  transactionHash: Hex;
  blockNumber: bigint;
  /** The lane's stamp: the event's public output with the transaction both providers answer for it. */
  withTransaction(transaction: ObservedTransaction): Stamp;
}

/** Where a lane's chain is read: its chain, two provider URLs and the setting that names them. */
export interface LaneChainSite {
  /** The lane's name in the message when there are not two URLs ("base-layer"). */
  lane: string;
  chainId: number;
  /** The viem chain at one URL (src/chain/chain.ts). */
  chainAt: (url: string) => Chain;
  /** The two JSON-RPC URLs: the fixed provider positions 1 and 2. */
  rpcUrls: readonly string[];
  /** The configuration variable of the URLs, for the message when there are not two. */
  setting: string;
}

/**
 * What a launch lane's chain says, read through both providers: the lane-neutral part of BaseLaunchChain
 * (src/chain/base-launch-chain.ts) and MultiRoleLaunchChain (src/chain/multi-role-launch-chain.ts). The finalized
 * checkpoint both agree on (after checking that both serve the lane's chain with the bound runtime code at the
 * router and the permit authority), the latest block, the exact wallet transaction's eth_call, the router's stamp
 * events with their transactions, wallet transactions to the router, receipts. It reads; it decides nothing, signs
 * nothing and sends nothing. A provider that does not answer throws viem's error; providers that disagree (with each
 * other or with the bound deployment) throw ProviderDisagreement.
 */
export abstract class LaneLaunchChain {
  protected readonly clients: readonly [PublicClient, PublicClient];
  private readonly chainId: number;

  constructor(site: LaneChainSite) {
    if (site.rpcUrls.length !== 2) throw new Error(`the ${site.lane} chain needs two ${site.setting}`);
    this.chainId = site.chainId;
    this.clients = site.rpcUrls.map((url, position) =>
      createPublicClient({
        chain: site.chainAt(url),
        transport: providerTransport(
          url,
          { chain: String(site.chainId), position },
          { retryCount: 1, timeout: 20_000 },
        ),
      }),
    ) as unknown as readonly [PublicClient, PublicClient];
  }

  /** The lane's router. */
  abstract get router(): Address;

  /** The lane's router and permit authority, whose runtime code both providers must hold. */
  protected abstract boundContracts(): readonly ContractBinding[];

  /**
   * Both providers serve the lane's chain with the bound router and permit authority code; then the lower of their
   * finalized heights, with the same hash on both.
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

  /** The latest block both providers have reached (the lower of their heads): the trackers search no further. */
  async agreedHead(): Promise<{ number: bigint; timestamp: bigint }> {
    const heads = await Promise.all(this.clients.map((c) => c.getBlock({ blockTag: 'latest' })));
    const lower = heads.reduce((a, b) => (b.number < a.number ? b : a));
    return { number: lower.number, timestamp: lower.timestamp };
  }

  /**
   * The block hash at a height as both providers answer it, null when neither has a block there; throws
   * ProviderDisagreement when they answer differently (another hash, or a block on one only) and the provider's error
   * when one cannot be read.
   */
  async agreedBlockHash(number: bigint): Promise<Hex | null> {
    const hashes = await Promise.all(
      this.clients.map((c) =>
        c.getBlock({ blockNumber: number }).then((b) => b.hash as Hex, noneOn(BlockNotFoundError)),
      ),
    );
    return sameOnBoth(`the hash of block ${number}`, hashes);
  }

  /**
   * eth_call, then eth_estimateGas, of exactly `call` at the latest block of the first provider, without state
   * overrides: the wallet's balance and the chain's state are part of what is checked. Only an EVM revert is a
   * result; a provider that did not answer throws.
   */
  async simulate(call: LaneCall): Promise<LaneSimulation> {
    const request = { account: call.from, to: call.to, data: call.data, value: call.value };
    try {
      await this.clients[0].call(request);
      return { ok: true, gasUsed: await this.clients[0].estimateGas(request) };
    } catch (err) {
      if (!isExecutionRevert(err)) throw err;
      return { ok: false, revert: describeRevert(revertDataOf(err)) };
    }
  }

  /** Mined transactions from `wallet` to the router in blocks [from, to] (routerTransactions, filtered). */
  async walletTransactions(wallet: Address, from: bigint, to: bigint): Promise<ObservedTransaction[]> {
    return (await this.routerTransactions(from, to)).filter((tx) => tx.from.toLowerCase() === wallet.toLowerCase());
  }

  /**
   * Mined transactions to the router in blocks [from, to], in chain order, on the first provider: one block read
   * (with its transactions) per block, whatever the number of wallets followed.
   */
  async routerTransactions(from: bigint, to: bigint): Promise<ObservedTransaction[]> {
    const router = this.router.toLowerCase();
    const found: ObservedTransaction[] = [];
    for (const block of await blocksWithTransactions(this.clients[0], from, to)) {
      for (const tx of block.transactions) {
        if (tx.to?.toLowerCase() !== router) continue;
        const seen = observedTransactionOf(tx);
        if (seen) found.push(seen);
      }
    }
    return found;
  }

  /**
   * Whether a mined transaction succeeded or reverted, as both providers answer it; null when neither has a receipt.
   * Throws ProviderDisagreement when they answer differently.
   */
  async receiptStatus(hash: Hex): Promise<'success' | 'reverted' | null> {
    const receipts = await Promise.all(
      this.clients.map((c) =>
        c
          .getTransactionReceipt({ hash })
          .then((r) => ({ status: r.status, blockHash: r.blockHash }), noneOn(TransactionReceiptNotFoundError)),
      ),
    );
    // The status of the transaction in the block both name: a receipt from another block is no agreement.
    return sameOnBoth(`the receipt of ${hash}`, receipts)?.status ?? null;
  }

  /**
   * A mined transaction as both providers answer it, or null when neither has it mined. Throws ProviderDisagreement
   * when they answer differently.
   */
  async transaction(hash: Hex): Promise<ObservedTransaction | null> {
    const txs = await Promise.all(
      this.clients.map((c) => c.getTransaction({ hash }).then(observedTransactionOf, noneOn(TransactionNotFoundError))),
    );
    return sameOnBoth(`transaction ${hash}`, txs);
  }

  /** A launched token's decimals() on the first provider, or null (readTokenDecimals). */
  tokenDecimals(token: Address): Promise<number | null> {
    return readTokenDecimals(this.clients[0], token);
  }

  /** The router's logs in blocks [from, to], for a lane's stamp events. */
  protected routerLogs(from: bigint, to: bigint): Promise<Log[]> {
    return this.clients[0].getLogs({ address: this.router, fromBlock: from, toBlock: to });
  }

  /**
   * The stamp events of every launch intent in blocks [from, to] (one log query), each to be completed with its
   * transaction only for the launch it names.
   */
  abstract stampEvents(from: bigint, to: bigint): Promise<Array<LaneStampEvent<unknown>>>;

  /** The decoded stamp events of one launch intent, each with its mined transaction (events without one are left). */
  protected async stampsOf<Stamp>(
    events: ReadonlyArray<LaneStampEvent<Stamp>>,
    launchIntentHash: Hex,
  ): Promise<Stamp[]> {
    const found: Stamp[] = [];
    for (const event of events) {
      if (event.launchIntentHash.toLowerCase() !== launchIntentHash.toLowerCase()) continue;
      const transaction = await this.transaction(event.transactionHash);
      if (transaction) found.push(event.withTransaction(transaction));
    }
    return found;
  }

  /** Both providers serve the lane's chain with the bound runtime code at the router and the permit authority. */
  private async checkBoundCode(): Promise<void> {
    for (const [i, client] of this.clients.entries()) {
      const chainId = await client.getChainId();
      if (chainId !== this.chainId) {
        throw new ProviderDisagreement(`provider ${i + 1} serves chain ${chainId}, not ${this.chainId}`);
      }
      for (const binding of this.boundContracts()) {
        const code = await client.getCode({ address: binding.address });
        if (keccak256(code ?? '0x') !== binding.runtimeCodeHash.toLowerCase()) {
          throw new ProviderDisagreement(`provider ${i + 1}: ${binding.address} does not hold the bound runtime code`);
        }
      }
    }
  }
}
