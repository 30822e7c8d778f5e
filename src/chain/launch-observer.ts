import {
  BlockNotFoundError,
  createPublicClient,
  decodeFunctionData,
  type Hex,
  type PublicClient,
  parseEventLogs,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
} from 'viem';
import { launchStampRouterAbi } from '../../generated/contracts/abis.ts';
import { chain4663 } from './chain.ts';
import { noneOn, sameOnBoth } from './chain-failure.ts';
import { providerTransport } from './provider-transport.ts';
import { readTokenDecimals } from './token-decimals.ts';

/** A transaction as the tracker compares it with the exact wallet transaction. */
export interface ObservedTransaction {
  hash: Hex;
  chainId: number;
  from: Hex;
  to: Hex | null;
  value: bigint;
  input: Hex;
  blockNumber: bigint;
  blockHash: Hex;
}

/** A router's LaunchStamped event: the launch intent it stamped and the transaction that emitted it. */
export interface ObservedStamp {
  router: Hex;
  launchIntentHash: Hex;
  transactionHash: Hex;
  blockNumber: bigint;
}

/** What the post-authorization tracker reads from chain 4663; one implementation over viem, two providers. */
export interface LaunchObserver {
  /** The latest block both providers have reached (the lower of their heads): its number and timestamp (seconds). */
  head(): Promise<{ number: bigint; timestamp: bigint }>;
  /** The `safe` and `finalized` block numbers both providers agree are reached (the lower of the two). */
  checkpoints(): Promise<{ safe: bigint; finalized: bigint }>;
  /**
   * The block hash at a height as both providers answer it, null when neither has a block there; throws
   * ProviderDisagreement when they answer differently (another hash, or a block on one only), and the provider's
   * error when one cannot be read: one provider's word is never taken for the chain's.
   */
  agreedBlockHash(number: bigint): Promise<Hex | null>;
  /**
   * The LaunchStamped events of the `routers` in blocks [from, to], in chain order, on the first provider: one log
   * query for every launch intent (the tracker hands each launch the stamps of its own intent).
   */
  routerStamps(routers: readonly Hex[], from: bigint, to: bigint): Promise<ObservedStamp[]>;
  /**
   * The transactions to any of the `routers` mined in blocks [from, to], in chain order, on the first provider: one
   * block read (with its transactions) per block, whatever the number of wallets followed.
   */
  routerTransactions(routers: readonly Hex[], from: bigint, to: bigint): Promise<ObservedTransaction[]>;
  /**
   * A transaction as both providers answer it (null when neither has it mined); throws ProviderDisagreement when
   * they answer differently.
   */
  transaction(hash: Hex): Promise<ObservedTransaction | null>;
  /** The runtime code at an address at a block on both providers: null when either fails or they disagree. */
  agreedCode(address: Hex, blockNumber: bigint): Promise<Hex | null>;
  /**
   * The receipt status of a mined transaction as both providers answer it, null when neither has a receipt; throws
   * ProviderDisagreement when they answer differently.
   */
  receiptStatus(hash: Hex): Promise<{ status: 'success' | 'reverted'; blockNumber: bigint; blockHash: Hex } | null>;
  /** A launched token's decimals() on the first provider, or null (readTokenDecimals). */
  tokenDecimals(token: Hex): Promise<number | null>;
}

/** A transaction as the trackers compare it, or null while it is not mined. */
export function observedTransactionOf(tx: {
  hash: Hex;
  chainId?: number | undefined;
  from: Hex;
  to: Hex | null;
  value: bigint;
  input: Hex;
  blockNumber: bigint | null;
  blockHash: Hex | null;
}): ObservedTransaction | null {
  if (tx.blockNumber === null || tx.blockHash === null) return null;
  return {
    hash: tx.hash,
    chainId: tx.chainId ?? 0,
    from: tx.from,
    to: tx.to,
    value: tx.value,
    input: tx.input,
    blockNumber: tx.blockNumber,
    blockHash: tx.blockHash,
  };
}

/** A client of chain 4663 on the provider at `position`, each request tried twice and given `timeoutMs`. */
function observerClient(url: string, position: number, timeoutMs: number): PublicClient {
  return createPublicClient({
    chain: chain4663(url),
    transport: providerTransport(url, { chain: '4663', position }, { retryCount: 1, timeout: timeoutMs }),
  }) as PublicClient;
}

/**
 * The tracker's chain reads over two provider URLs: progress is read only by polling, the head is the lower of the
 * two providers' heads, a block hash, a transaction and a receipt count only when both providers answer them alike
 * (otherwise ProviderDisagreement, a transient failure), and the checkpoints are the lower of the two providers'
 * `safe` and `finalized` tags (on a Nitro chain `safe` means posted to the base layer; on anvil both tags stand in
 * for it). Each request gives up after `timeoutMs` (CHAIN_RPC_TIMEOUT_MS).
 */
export function viemLaunchObserver(rpcUrls: readonly string[], options: { timeoutMs?: number } = {}): LaunchObserver {
  const clients = rpcUrls.map((url, position) => observerClient(url, position, options.timeoutMs ?? 20_000));
  const first = clients[0];
  if (!first || clients.length !== 2) throw new Error('the launch observer needs two CHAIN_4663_RPC_URLS');
  const tagNumber = async (client: PublicClient, blockTag: 'safe' | 'finalized') =>
    (await client.getBlock({ blockTag })).number;
  /** What both providers read alike, or null when either cannot read it or they differ. */
  const agreed = async (read: (client: PublicClient) => Promise<Hex>): Promise<Hex | null> => {
    const values = await Promise.all(clients.map((c) => read(c).catch(() => null)));
    return values.every((v) => v !== null && v === values[0]) ? (values[0] as Hex) : null;
  };
  const onBoth = <T>(read: (client: PublicClient) => Promise<T>) => Promise.all(clients.map(read));
  return {
    head: async () => {
      const heads = await onBoth((c) => c.getBlock({ blockTag: 'latest' }));
      const lower = heads.reduce((a, b) => (b.number < a.number ? b : a));
      return { number: lower.number, timestamp: lower.timestamp };
    },
    checkpoints: async () => {
      const read = await Promise.all(
        clients.map(async (c) => ({ safe: await tagNumber(c, 'safe'), finalized: await tagNumber(c, 'finalized') })),
      );
      const min = (a: bigint, b: bigint) => (a < b ? a : b);
      return read.reduce((a, b) => ({ safe: min(a.safe, b.safe), finalized: min(a.finalized, b.finalized) }));
    },
    agreedBlockHash: async (number) => {
      const hashes = await onBoth((c) =>
        c.getBlock({ blockNumber: number }).then((b) => b.hash, noneOn(BlockNotFoundError)),
      );
      return sameOnBoth(`the hash of block ${number}`, hashes);
    },
    agreedCode: (address, blockNumber) =>
      agreed((c) => c.getCode({ address, blockNumber }).then((code) => (code ?? '0x').toLowerCase() as Hex)),
    routerStamps: async (routers, from, to) => {
      const logs = await first.getLogs({ address: [...routers], fromBlock: from, toBlock: to });
      return parseEventLogs({ abi: launchStampRouterAbi, logs, eventName: 'LaunchStamped' }).map((l) => ({
        router: l.address,
        launchIntentHash: l.args.launchIntentHash,
        transactionHash: l.transactionHash,
        blockNumber: l.blockNumber,
      }));
    },
    routerTransactions: async (routers, from, to) => {
      const wanted = new Set(routers.map((r) => r.toLowerCase()));
      const found: ObservedTransaction[] = [];
      for (const block of await blocksWithTransactions(first, from, to)) {
        for (const tx of block.transactions) {
          if (!tx.to || !wanted.has(tx.to.toLowerCase())) continue;
          const seen = observedTransactionOf(tx);
          if (seen) found.push(seen);
        }
      }
      return found;
    },
    transaction: async (hash) => {
      const txs = await onBoth((c) =>
        c.getTransaction({ hash }).then(observedTransactionOf, noneOn(TransactionNotFoundError)),
      );
      return sameOnBoth(`transaction ${hash}`, txs);
    },
    tokenDecimals: (token) => readTokenDecimals(first, token),
    receiptStatus: async (hash) => {
      const receipts = await onBoth((c) =>
        c
          .getTransactionReceipt({ hash })
          .then(
            (r) => ({ status: r.status, blockNumber: r.blockNumber, blockHash: r.blockHash }),
            noneOn(TransactionReceiptNotFoundError),
          ),
      );
      return sameOnBoth(`the receipt of ${hash}`, receipts);
    },
  };
}

/** Blocks read at once while a range is fetched: a far-behind poll is not one request at a time, nor a flood. */
const blockReadsAtOnce = 8;

/** The blocks [from, to] with their transactions, in order, on one provider: one block read per block. */
export async function blocksWithTransactions(client: PublicClient, from: bigint, to: bigint) {
  const blocks = [];
  for (let start = from; start <= to; start += BigInt(blockReadsAtOnce)) {
    const numbers: bigint[] = [];
    for (let n = start; n <= to && n < start + BigInt(blockReadsAtOnce); n++) numbers.push(n);
    blocks.push(
      ...(await Promise.all(numbers.map((n) => client.getBlock({ blockNumber: n, includeTransactions: true })))),
    );
  }
  return blocks;
}

/** The permit's checkpoint block in an exact wallet transaction's router calldata: the tracker scans after it. */
export function permitCheckpointOf(data: Hex): bigint {
  const { args } = decodeFunctionData({ abi: launchStampRouterAbi, data });
  const permit = args?.[2] as { checkpointBlockNumber: bigint } | undefined;
  if (!permit) throw new Error('the wallet transaction is not a router launch call');
  return permit.checkpointBlockNumber;
}

/** The launch intent a router launch call names, or null when the calldata is not one (it concerns no launch). */
export function launchIntentOfCalldata(data: Hex): Hex | null {
  try {
    const { functionName, args } = decodeFunctionData({ abi: launchStampRouterAbi, data });
    if (functionName !== 'launch') return null;
    return ((args?.[0] as { launchIntentHash?: Hex } | undefined)?.launchIntentHash ?? null) as Hex | null;
  } catch {
    return null;
  }
}
