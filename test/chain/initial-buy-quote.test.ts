import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import solc from 'solc';
import { createPublicClient, createWalletClient, type Hex, http, parseAbi } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minimumWeiForOneUsd } from '../../src/chain/price-feed.ts';
import { bindRequestHashes } from '../../src/core/request-hashes.ts';
import { devnetOperatorKey, startAnvil } from '../../src/devnet/anvil.ts';
import { auth, call } from '../support/http.ts';
import { example, startServer, type TestServer, v4Example } from '../support/server.ts';

const nowMs = Date.parse('2026-11-22T12:00:00.000Z');
const nowSeconds = BigInt(nowMs / 1000);
const feedAbi = parseAbi(['function publishAt(int256 newAnswer, uint256 observedAt)']);
let anvil: Awaited<ReturnType<typeof startAnvil>>;
let s: TestServer;
let publishAt: (answer: bigint, observedAt: bigint) => Promise<void>;

/** Compiles contracts/NativeUsdPriceFeed.sol from source with solc-js. */
function compileFeed(): { abi: unknown[]; bytecode: Hex } {
  const source = readFileSync(new URL('../../contracts/NativeUsdPriceFeed.sol', import.meta.url), 'utf8');
  const input = {
    language: 'Solidity',
    sources: { 'NativeUsdPriceFeed.sol': { content: source } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
  if (errors.length > 0) throw new Error(JSON.stringify(errors));
  const contract = output.contracts['NativeUsdPriceFeed.sol'].NativeUsdPriceFeed;
  return { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
}

beforeAll(async () => {
  anvil = await startAnvil();
  const account = privateKeyToAccount(devnetOperatorKey);
  const wallet = createWalletClient({ account, transport: http(anvil.url) });
  const chain = createPublicClient({ transport: http(anvil.url) });
  const { abi, bytecode } = compileFeed();
  const chainDef = {
    id: 4663,
    name: 'devnet',
    nativeCurrency: { name: 'ETH', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [anvil.url] } },
  };
  const hash = await wallet.deployContract({ abi, bytecode, args: [300_000_000_000n], chain: chainDef });
  const receipt = await chain.waitForTransactionReceipt({ hash });
  const feed = receipt.contractAddress as Hex;
  publishAt = async (answer, observedAt) => {
    const tx = await wallet.writeContract({
      address: feed,
      abi: feedAbi,
      functionName: 'publishAt',
      args: [answer, observedAt],
      chain: chainDef,
    });
    await chain.waitForTransactionReceipt({ hash: tx });
  };
  s = await startServer({ chain4663RpcUrls: [anvil.url], priceFeedAddress: feed }, () => nowMs);
}, 90_000);
afterAll(async () => {
  await s?.close();
  await anvil?.stop();
});

const quote = () => call(`${s.url}/v4/chains/4663/initial-buy-quote`);

describe('initial-buy quote from the chain-4663 price feed (getL2InitialBuyUsdQuoteV1)', () => {
  it.each([
    ['3,000.00 USD, just published', 300_000_000_000n, 0n, 200, '333333333333334'],
    ['1.00 USD: exactly one coin', 100_000_000n, 0n, 200, '1000000000000000000'],
    ['60 s old: still fresh', 300_000_000_000n, 60n, 200, '333333333333334'],
    ['61 s old: stale, no fallback', 300_000_000_000n, 61n, 503, null],
    ['a zero price', 0n, 0n, 503, null],
    ['a negative price', -1n, 0n, 503, null],
  ] as const)('%s', async (_name, answer, ageSeconds, status, minimumWei) => {
    await publishAt(answer, nowSeconds - ageSeconds);
    const r = await quote();
    expect(r.status, r.text).toBe(status);
    if (status === 200) {
      expect(r.json).toMatchObject({
        minimumUsd: 1,
        minimumInitialBuyWei: minimumWei,
        referenceOnly: true,
        nativeUsd: { answer: answer.toString(), decimals: 8, maxAgeSeconds: 60 },
      });
      expect(r.json.nativeUsd.updatedAt).toBe(new Date(Number(nowSeconds - ageSeconds) * 1000).toISOString());
    } else {
      expect(r.json.error).toMatchObject({ code: 'PRICE_SOURCE_UNAVAILABLE', retryable: true });
      expect(r.headers.get('retry-after')).toBe(String(s.config.quoteRetryAfterSeconds));
    }
  });

  it('answers a retryable 503 when the chain does not answer', async () => {
    const offline = await startServer(
      { chain4663RpcUrls: ['http://127.0.0.1:9'], priceFeedAddress: '0x5FbDB2315678afecb367f032d93F642f64180aa3' },
      () => nowMs,
    );
    try {
      const r = await call(`${offline.url}/v4/chains/4663/initial-buy-quote`);
      expect(r.status).toBe(503);
      expect(r.json.error).toMatchObject({ code: 'PRICE_SOURCE_UNAVAILABLE', retryable: true });
    } finally {
      await offline.close();
    }
  });

  it('rounds the USD 1 minimum up to the next wei for any price', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 30n }), fc.integer({ min: 0, max: 18 }), (answer, decimals) => {
        const wei = minimumWeiForOneUsd(answer, decimals);
        const oneUsd = 10n ** 18n * 10n ** BigInt(decimals);
        expect(wei * answer >= oneUsd).toBe(true);
        expect((wei - 1n) * answer < oneUsd).toBe(true);
      }),
      { seed: 4663, numRuns: 1000 },
    );
  });
});

describe('the 4.1.0 admission uses the fresh quote: an initial buy of at least USD 1', () => {
  const preflightWithBuy = async (initialBuyWei: bigint) => {
    const request = example(v4Example) as any;
    request.externalContracts = [];
    const a = request.fundingPlan.nativeAllocations;
    const total = BigInt(request.fundingPlan.walletTransactionValueWei);
    a.initialBuyWei = initialBuyWei.toString();
    // Only the buy is on trial: the allocations still sum to the unchanged wallet value.
    a.initialLiquidityWei = (
      total -
      initialBuyWei -
      BigInt(a.reservesWei) -
      a.otherNativeAllocations.reduce((sum: bigint, o: { amountWei: string }) => sum + BigInt(o.amountWei), 0n)
    ).toString();
    return call(`${s.url}/v4/chains/4663/custom-launches/preflight`, {
      method: 'POST',
      headers: auth(s.key()),
      body: JSON.stringify(bindRequestHashes(request)),
    });
  };

  it.each([
    ['one wei below the USD 1 minimum blocks', 333_333_333_333_333n, ['INITIAL_BUY_BELOW_USD_1']],
    ['exactly the USD 1 minimum passes', 333_333_333_333_334n, []],
  ] as const)('%s', async (_name, buy, blocking) => {
    await publishAt(300_000_000_000n, nowSeconds);
    const r = await preflightWithBuy(buy);
    expect(r.status, r.text).toBe(200);
    expect(r.json.blockingFindingCodes).toEqual(blocking);
    expect(r.json.needsEvidenceFindingCodes).not.toContain('INITIAL_BUY_USD_UNPROVEN');
  });

  it('needs evidence again when the quote goes stale', async () => {
    await publishAt(300_000_000_000n, nowSeconds - 61n);
    const r = await preflightWithBuy(333_333_333_333_334n);
    expect(r.json.needsEvidenceFindingCodes).toContain('INITIAL_BUY_USD_UNPROVEN');
  });
});
