import { type Address, createPublicClient, type PublicClient, parseAbi } from 'viem';
import type { L2InitialBuyUsdQuoteV1 } from '../../generated/types/service.ts';
import type { Config } from '../config.ts';
import { ApiError } from '../errors/api-error.ts';
import { providerTransport } from './provider-transport.ts';

/** Chainlink AggregatorV3 reads: the native/USD reference for the USD 1 initial buy. */
export const aggregatorV3Abi = parseAbi([
  'function decimals() view returns (uint8)',
  'function latestRoundData() view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)',
]);

/** A quote is no older than this (spec/schemas/l2-initial-buy-usd-quote.v1.schema.json). */
export const quoteMaxAgeSeconds = 60;

/** Minimum wei worth USD 1 at `answer` (USD per native coin × 10^decimals), rounded up to the next wei. */
export function minimumWeiForOneUsd(answer: bigint, decimals: number): bigint {
  if (answer <= 0n) throw new RangeError('answer must be positive');
  const numerator = 10n ** 18n * 10n ** BigInt(decimals);
  return (numerator + answer - 1n) / answer;
}

/**
 * Reads the native/USD reference from the configured aggregator and prices the USD 1 initial buy. Fresh or
 * nothing: a non-positive answer, a missing update, one older than 60 seconds or one dated in the future answers
 * 503 PRICE_SOURCE_UNAVAILABLE (retryable, with Retry-After); there is no stale fallback. A reference only: it
 * changes no transaction or budget. Spec: spec/openapi/paths/v4-initial-buy-quote.yaml getL2InitialBuyUsdQuoteV1.
 */
export class PriceFeed {
  private readonly client: PublicClient;

  constructor(
    rpcUrl: string,
    private readonly feed: Address,
    private readonly retryAfterSeconds: number,
  ) {
    // The quote reads the first of CHAIN_4663_RPC_URLS (priceFeedFromConfig).
    this.client = createPublicClient({
      transport: providerTransport(rpcUrl, { chain: '4663', position: 0 }, { timeout: 5_000, retryCount: 0 }),
    });
  }

  async quote(nowMs: number): Promise<L2InitialBuyUsdQuoteV1> {
    const unavailable = (why: string) =>
      new ApiError('PRICE_SOURCE_UNAVAILABLE', {
        message: `No fresh native/USD price: ${why}. No stale value is served; retry after Retry-After.`,
        retryAfterSeconds: this.retryAfterSeconds,
      });
    let decimals: number;
    let answer: bigint;
    let updatedAt: bigint;
    try {
      [decimals, [, answer, , updatedAt]] = await Promise.all([
        this.client.readContract({ address: this.feed, abi: aggregatorV3Abi, functionName: 'decimals' }),
        this.client.readContract({ address: this.feed, abi: aggregatorV3Abi, functionName: 'latestRoundData' }),
      ]);
    } catch {
      throw unavailable('the price source did not answer');
    }
    const ageSeconds = Math.floor(nowMs / 1000) - Number(updatedAt);
    if (answer <= 0n) throw unavailable('the source reports no positive price');
    if (updatedAt === 0n) throw unavailable('the source has no completed round');
    if (ageSeconds > quoteMaxAgeSeconds) throw unavailable(`the latest price is ${ageSeconds} s old`);
    if (ageSeconds < -quoteMaxAgeSeconds) throw unavailable('the latest price is dated in the future');
    return {
      schemaVersion: 'platform.l2-initial-buy-usd-quote.v1',
      chainId: '4663',
      caip2: 'eip155:4663',
      nativeUsd: {
        answer: answer.toString(),
        decimals,
        updatedAt: new Date(Number(updatedAt) * 1000).toISOString(),
        observedAt: new Date(nowMs).toISOString(),
        maxAgeSeconds: 60,
        source: `aggregator-v3:${this.feed.toLowerCase()}`,
      },
      minimumUsd: 1,
      minimumInitialBuyWei: minimumWeiForOneUsd(answer, decimals).toString(),
      referenceOnly: true,
    };
  }
}

/** The price feed of a configuration, or null when no chain RPC or no feed address is configured. */
export function priceFeedFromConfig(config: Config): PriceFeed | null {
  const rpcUrl = config.chain4663RpcUrls[0];
  return rpcUrl && config.priceFeedAddress
    ? new PriceFeed(rpcUrl, config.priceFeedAddress as Address, config.quoteRetryAfterSeconds)
    : null;
}

/** The USD 1 minimum by a fresh quote, or null when there is no fresh quote (admission evidence). */
export async function minimumInitialBuyWei(feed: PriceFeed | null, nowMs: number): Promise<bigint | null> {
  if (!feed) return null;
  try {
    return BigInt((await feed.quote(nowMs)).minimumInitialBuyWei);
  } catch (err) {
    if (err instanceof ApiError) return null;
    throw err;
  }
}
