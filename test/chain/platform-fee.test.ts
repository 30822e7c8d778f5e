import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import {
  type Abi,
  type Address,
  concat,
  createPublicClient,
  createWalletClient,
  decodeErrorResult,
  encodeAbiParameters,
  encodeFunctionData,
  type Hex,
  http,
  keccak256,
  maxUint256,
  parseAbi,
  parseEventLogs,
  type TransactionReceipt,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleTokenAbi, launchStampRouterAbi } from '../../generated/contracts/abis.ts';
import { chain4663 } from '../../src/chain/chain.ts';
import { launchPermitTypedData } from '../../src/chain/launch-permit.ts';
import { predictGraphTarget } from '../../src/core/create2.ts';
import { devnetPermitAttesterKey, startDevnet } from '../../src/devnet/devnet.ts';
import { call } from '../support/http.ts';
import { startServer } from '../support/server.ts';

/**
 * The Native20 fee on every buy and sell through the launch stamp router
 * (spec/schemas/custom-launch-capabilities.v2.schema.json FeePolicy), on one real devnet shared by the file:
 * the spec example is launched, then traded through the router with awkward amounts, then the accrued claims are
 * settled by a stranger to the fixed recipient.
 */
const require = createRequire(import.meta.url);
const example = JSON.parse(
  readFileSync(new URL('../../spec/examples/custom-launch-create-request.v4.json', import.meta.url), 'utf8'),
);
/** Anvil's well-known accounts 2 and 3: the trader (launch controller here) and a stranger who settles. */
const trader = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a');
const stranger = privateKeyToAccount('0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6');
const zeroAddress: Address = '0x0000000000000000000000000000000000000000';
const poolManagerAbi = parseAbi([
  'function balanceOf(address owner, uint256 id) view returns (uint256)',
  'function extsload(bytes32 slot) view returns (bytes32)',
  'event Swap(bytes32 indexed id, address indexed sender, int128 amount0, int128 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick, uint24 fee)',
]);
const poolSwapTest = require('@uniswap/v4-core/out/PoolSwapTest.sol/PoolSwapTest.json') as {
  abi: Abi;
  bytecode: { object: Hex };
};
/** The Native20 fee written out independently of the code under test: ceil(gross × 20 / 10,000). */
const native20 = (gross: bigint) => (gross * 20n + 9_999n) / 10_000n;

type PoolKey = { currency0: Address; currency1: Address; fee: number; tickSpacing: number; hooks: Address };

describe('the Native20 platform fee on every router trade, settled by anyone to the fixed recipient', () => {
  let devnet: Awaited<ReturnType<typeof startDevnet>>;
  let reader: ReturnType<typeof createPublicClient>;
  let chain: ReturnType<typeof chain4663>;
  let router: Address;
  let poolManager: Address;
  let feeRecipient: Address;
  let key: PoolKey;
  let poolId: Hex;
  let initialBuyFee: bigint;

  const claimOf = (owner: Address) =>
    reader.readContract({ address: poolManager, abi: poolManagerAbi, functionName: 'balanceOf', args: [owner, 0n] });
  const tokensOf = (owner: Address) =>
    reader.readContract({ address: key.currency1, abi: exampleTokenAbi, functionName: 'balanceOf', args: [owner] });
  /** The pool's fee growth of the native side and its liquidity (v4 StateLibrary: pools at slot 6). */
  const poolFeeState = async () => {
    const base = BigInt(keccak256(concat([poolId, encodeAbiParameters([{ type: 'uint256' }], [6n])])));
    const slot = (offset: bigint) =>
      reader.readContract({
        address: poolManager,
        abi: poolManagerAbi,
        functionName: 'extsload',
        args: [`0x${(base + offset).toString(16).padStart(64, '0')}`],
      });
    const [growth0, liquidity] = await Promise.all([slot(1n), slot(3n)]);
    return { growth0: BigInt(growth0), liquidity: BigInt(liquidity) & ((1n << 128n) - 1n) };
  };
  const send = async (
    account: typeof trader,
    request: { to?: Address; data: Hex; value?: bigint; gas?: bigint },
  ): Promise<TransactionReceipt> => {
    const wallet = createWalletClient({ account, chain, transport: http(devnet.deployment.rpcUrl) });
    const hash = await wallet.sendTransaction({ chain, ...request });
    return reader.waitForTransactionReceipt({ hash });
  };
  const routerCall = (functionName: string, args: readonly unknown[]) =>
    encodeFunctionData({ abi: launchStampRouterAbi, functionName, args } as never);
  /** The router's revert of a call (eth_call; nothing mined), decoded from its ABI. */
  const revertOf = async (account: Address, data: Hex, value = 0n) => {
    let caught: unknown;
    try {
      await reader.call({ account, to: router, data, value });
    } catch (err) {
      caught = err;
    }
    for (let e = caught as { data?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
      if (typeof e.data === 'string' && e.data.startsWith('0x')) {
        const decoded = decodeErrorResult({ abi: launchStampRouterAbi, data: e.data as Hex });
        return { errorName: decoded.errorName, args: decoded.args ?? [] };
      }
    }
    throw new Error(`the call did not revert with data: ${String(caught)}`);
  };
  const tradedOf = (receipt: TransactionReceipt) => {
    const events = parseEventLogs({ abi: launchStampRouterAbi, logs: receipt.logs, eventName: 'Traded' });
    expect(events).toHaveLength(1);
    return events[0]?.args as {
      poolId: Hex;
      trader: Address;
      recipient: Address;
      isBuy: boolean;
      grossNative: bigint;
      tokens: bigint;
      platformFee: bigint;
    };
  };
  const swapOf = (receipt: TransactionReceipt) => {
    const events = parseEventLogs({ abi: poolManagerAbi, logs: receipt.logs, eventName: 'Swap' });
    expect(events).toHaveLength(1);
    return events[0]?.args as { amount0: bigint; amount1: bigint };
  };

  beforeAll(async () => {
    devnet = await startDevnet();
    const { contracts } = devnet.deployment;
    router = contracts.platformLaunchStampRouter.address;
    poolManager = contracts.poolManager.address;
    feeRecipient = devnet.deployment.platformFeeRecipient;
    chain = chain4663(devnet.deployment.rpcUrl);
    reader = createPublicClient({ chain, transport: http(devnet.deployment.rpcUrl) });

    // The spec example's launch, controlled by the trader, with a permit from the devnet's attester.
    const targets = example.graphBundle.targets as Array<{
      role: string;
      runtimeBytecode: Hex;
      create2Salt: Hex;
      hookPermissions?: { mask: number };
    }>;
    const indexOf = (role: string) => targets.findIndex((t) => t.role === role);
    const [tokenIndex, hookIndex, initializerIndex] = [indexOf('token'), indexOf('hook'), indexOf('initializer')];
    const at = (i: number) => {
      const t = targets[i];
      if (!t) throw new Error(`no target ${i}`);
      return predictGraphTarget(contracts.graphFactory.address, router, t.create2Salt, t.runtimeBytecode);
    };
    const lm = example.liquidityModel;
    const plan = example.fundingPlan;
    const launchIntentHash = `0x${example.launchIntentHash.slice('sha256:'.length)}` as Hex;
    const [finalized, latest] = await Promise.all([
      reader.getBlock({ blockTag: 'finalized' }),
      reader.getBlock({ blockTag: 'latest' }),
    ]);
    const value = BigInt(plan.walletTransactionValueWei);
    const permit = {
      launchIntentHash,
      wallet: trader.address,
      value,
      checkpointBlockNumber: finalized.number,
      checkpointBlockHash: finalized.hash,
      issuedAt: latest.timestamp,
      expiresAt: latest.timestamp + 3600n,
    };
    const signature = await privateKeyToAccount(devnetPermitAttesterKey).signTypedData({
      ...launchPermitTypedData(contracts.permitAuthority.address),
      message: permit,
    });
    const params = {
      launchIntentHash,
      lpFee: lm.lpFeePips,
      tickSpacing: lm.tickSpacing,
      sqrtPriceX96: BigInt(lm.initialSqrtPriceX96),
      tokenSupply: BigInt(lm.tokenLiquidityAmount),
      liquidityNative: BigInt(plan.nativeAllocations.initialLiquidityWei),
      initialBuyNative: BigInt(plan.nativeAllocations.initialBuyWei),
      minTokenOut: BigInt(plan.initialBuy.minTokenOut),
      hookMask: targets[hookIndex]?.hookPermissions?.mask,
      tokenIndex,
      hookIndex,
      initializerIndex,
    };
    const data = routerCall('launch', [
      params,
      targets.map((t) => ({ runtimeCode: t.runtimeBytecode, salt: t.create2Salt })),
      permit,
      signature,
    ]);
    const receipt = await send(trader, { to: router, data, value });
    expect(receipt.status).toBe('success');
    const stamped = parseEventLogs({ abi: launchStampRouterAbi, logs: receipt.logs, eventName: 'LaunchStamped' });
    const args = stamped[0]?.args as { poolId: Hex; platformFee: bigint };
    key = {
      currency0: zeroAddress,
      currency1: at(tokenIndex),
      fee: lm.lpFeePips,
      tickSpacing: lm.tickSpacing,
      hooks: at(hookIndex),
    };
    poolId = args.poolId;
    initialBuyFee = args.platformFee;
    expect(
      keccak256(
        encodeAbiParameters(
          [{ type: 'address' }, { type: 'address' }, { type: 'uint24' }, { type: 'int24' }, { type: 'address' }],
          [key.currency0, key.currency1, key.fee, key.tickSpacing, key.hooks],
        ),
      ),
    ).toBe(poolId);
  }, 120_000);

  afterAll(async () => {
    await devnet?.stop();
  });

  it('claims 20 bps of the initial buy for the platform, held by the router, none by anyone else', async () => {
    expect(BigInt(example.fundingPlan.nativeAllocations.initialBuyWei)).toBe(10n ** 15n);
    expect(initialBuyFee).toBe(2n * 10n ** 12n);
    expect(await claimOf(router)).toBe(initialBuyFee);
    expect(
      await reader.readContract({ address: router, abi: launchStampRouterAbi, functionName: 'accruedPlatformFees' }),
    ).toBe(initialBuyFee);
    expect(await claimOf(feeRecipient)).toBe(0n);
    expect(
      await reader.readContract({
        address: router,
        abi: launchStampRouterAbi,
        functionName: 'stampedPools',
        args: [poolId],
      }),
    ).toBe(true);
  });

  it.each([
    ['1 wei: the fee (1 wei, rounded up) would take all of it', 1n, 'TradeTooSmall', [1n]],
    [
      '2 wei: 1 wei fee, and the pool LP fee takes the 1 wei left, so no token comes out',
      2n,
      'TradeBelowMinimum',
      [0n, 0n],
    ],
  ] as const)('refuses a buy of %s, and claims nothing', async (_name, gross, errorName, args) => {
    const before = await claimOf(router);
    const revert = await revertOf(trader.address, routerCall('buy', [key, 0n, trader.address]), gross);
    expect(revert.errorName).toBe(errorName);
    expect(revert.args).toEqual(args);
    // Sent for real (fixed gas: a wallet would refuse on estimation), it reverts and nothing is claimed.
    const receipt = await send(trader, {
      to: router,
      data: routerCall('buy', [key, 0n, trader.address]),
      value: gross,
      gas: 1_000_000n,
    });
    expect(receipt.status).toBe('reverted');
    expect(await claimOf(router)).toBe(before);
  });

  it.each([
    ['4,999 wei: 9.998 rounds up to 10', 4_999n, 10n],
    ['5,000 wei: exactly 10', 5_000n, 10n],
    ['5,001 wei: 10.002 rounds up to 11', 5_001n, 11n],
    ['10^18 wei: exactly 2 × 10^15', 10n ** 18n, 2n * 10n ** 15n],
    ['10^18 + 1 wei: rounding up adds 1 wei', 10n ** 18n + 1n, 2n * 10n ** 15n + 1n],
  ] as const)('charges a buy of %s', async (_name, gross, fee) => {
    expect(native20(gross)).toBe(fee);
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const [claimBefore, managerBefore, poolBefore] = [
      await claimOf(router),
      await reader.getBalance({ address: poolManager }),
      await poolFeeState(),
    ];

    const receipt = await send(trader, { to: router, data: routerCall('buy', [key, 1n, recipient]), value: gross });
    expect(receipt.status).toBe('success');

    const traded = tradedOf(receipt);
    expect(traded).toEqual({
      poolId,
      trader: trader.address,
      recipient,
      isBuy: true,
      grossNative: gross,
      tokens: await tokensOf(recipient),
      platformFee: fee,
    });
    expect(traded.tokens).toBeGreaterThan(0n);
    // The platform claim grows by exactly the fee; the pool manager holds the whole gross: the net swapped plus the
    // claim's backing. The pool swapped exactly gross - fee.
    expect((await claimOf(router)) - claimBefore).toBe(fee);
    expect((await reader.getBalance({ address: poolManager })) - managerBefore).toBe(gross);
    const net = gross - fee;
    const swap = swapOf(receipt);
    expect(-swap.amount0).toBe(net);
    expect(swap.amount1).toBe(traded.tokens);
    // The LP fee (0.3% of the swapped amount) accrues to the pool's liquidity, apart from the claim. v4 rounds the
    // swap's input in the pool's favour and the fee growth down, so it matches 0.3% to within a few wei.
    const poolAfter = await poolFeeState();
    const lpFee = ((poolAfter.growth0 - poolBefore.growth0) * poolBefore.liquidity) >> 128n;
    const lpExact = (net * 3_000n) / 1_000_000n;
    expect(lpFee).toBeGreaterThanOrEqual(lpExact - 1n);
    expect(lpFee).toBeLessThanOrEqual(lpExact + lpExact / 1_000_000n + 3n);
    expect(await claimOf(feeRecipient)).toBe(0n);
  });

  /** The gross native a sell of `tokensIn` pays out now (eth_call of the router's sell: out + fee). */
  const simulatedGross = async (tokensIn: bigint) => {
    const { result } = await reader.simulateContract({
      account: trader.address,
      address: router,
      abi: launchStampRouterAbi,
      functionName: 'sell',
      args: [key, tokensIn, 0n, trader.address],
    });
    const [out, fee] = result as readonly [bigint, bigint];
    return out + fee;
  };
  /** A token amount whose sell pays out a gross amount with `residue` modulo 500 wei (20 bps of 500 wei is 1 wei). */
  const tokensInForResidue = async (residue: bigint, start: bigint) => {
    let tokensIn = start;
    for (let i = 0; i < 60; i++) {
      const gross = await simulatedGross(tokensIn);
      const missing = (residue - (gross % 500n) + 500n) % 500n;
      if (missing === 0n) return { tokensIn, gross };
      // Output grows about linearly with input here: step by the tokens that buy the missing wei (at least one).
      tokensIn += (missing * tokensIn) / gross + 1n;
    }
    throw new Error(`no sell with gross residue ${residue} found`);
  };

  it('approves the router for the trader’s tokens (a sell pulls them)', async () => {
    const receipt = await send(trader, {
      to: key.currency1,
      data: encodeFunctionData({ abi: exampleTokenAbi, functionName: 'approve', args: [router, maxUint256] }),
    });
    expect(receipt.status).toBe('success');
    expect(await tokensOf(trader.address)).toBeGreaterThan(10n ** 19n);
  });

  it('refuses a sell of 1 token unit: the pool pays out nothing, so nothing is charged', async () => {
    const before = await claimOf(router);
    const revert = await revertOf(trader.address, routerCall('sell', [key, 1n, 0n, trader.address]));
    expect(revert).toEqual({ errorName: 'TradeBelowMinimum', args: [0n, 0n] });
    expect(await claimOf(router)).toBe(before);
  });

  const sells: Array<[string, () => Promise<bigint>, (gross: bigint, fee: bigint) => void]> = [
    ['4,999 token units', async () => 4_999n, () => undefined],
    ['5,001 token units', async () => 5_001n, () => undefined],
    ['10^18 + 1 token units', async () => 10n ** 18n + 1n, () => undefined],
    [
      'an amount paying out a multiple of 500 wei: 20 bps is exact',
      async () => (await tokensInForResidue(0n, 10n ** 17n)).tokensIn,
      (gross, fee) => {
        expect(gross % 500n).toBe(0n);
        expect(fee * 500n).toBe(gross);
      },
    ],
    [
      'an amount paying out 500k + 1 wei: rounding up adds 1 wei',
      async () => (await tokensInForResidue(1n, 10n ** 17n)).tokensIn,
      (gross, fee) => {
        expect(gross % 500n).toBe(1n);
        expect(fee).toBe((gross * 20n) / 10_000n + 1n);
      },
    ],
  ];
  it.each(sells)('charges a sell of %s on the gross native paid out', async (_name, amount, extra) => {
    const tokensIn = await amount();
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const [claimBefore, tokensBefore] = [await claimOf(router), await tokensOf(trader.address)];

    const receipt = await send(trader, { to: router, data: routerCall('sell', [key, tokensIn, 1n, recipient]) });
    expect(receipt.status).toBe('success');

    // The gross is what the pool paid out (its Swap event); the seller paid exactly tokensIn.
    const swap = swapOf(receipt);
    const gross = swap.amount0;
    expect(gross).toBeGreaterThan(0n);
    expect(-swap.amount1).toBe(tokensIn);
    expect(tokensBefore - (await tokensOf(trader.address))).toBe(tokensIn);
    const fee = native20(gross);
    expect(fee).toBeGreaterThan(0n);
    expect((await claimOf(router)) - claimBefore).toBe(fee);
    expect(await reader.getBalance({ address: recipient })).toBe(gross - fee);
    expect(tradedOf(receipt)).toEqual({
      poolId,
      trader: trader.address,
      recipient,
      isBuy: false,
      grossNative: gross,
      tokens: tokensIn,
      platformFee: fee,
    });
    extra(gross, fee);
    expect(await claimOf(feeRecipient)).toBe(0n);
  });

  it('refuses a sell below its minimum native output, and pools the router did not stamp', async () => {
    const gross = await simulatedGross(10n ** 18n);
    const out = gross - native20(gross);
    const below = await revertOf(trader.address, routerCall('sell', [key, 10n ** 18n, out + 1n, trader.address]));
    expect(below).toEqual({ errorName: 'TradeBelowMinimum', args: [out, out + 1n] });
    const foreign = { ...key, fee: 500 };
    const foreignId = keccak256(
      encodeAbiParameters(
        [{ type: 'address' }, { type: 'address' }, { type: 'uint24' }, { type: 'int24' }, { type: 'address' }],
        [foreign.currency0, foreign.currency1, foreign.fee, foreign.tickSpacing, foreign.hooks],
      ),
    );
    expect(await revertOf(trader.address, routerCall('buy', [foreign, 1n, trader.address]), 10n ** 15n)).toEqual({
      errorName: 'PoolNotStamped',
      args: [foreignId],
    });
    expect(await revertOf(trader.address, routerCall('buy', [key, 1n, zeroAddress]), 10n ** 15n)).toEqual({
      errorName: 'RecipientZero',
      args: [],
    });
  });

  it('charges nothing on a swap another router sends straight to the pool manager (outside the platform path)', async () => {
    const deployed = await send(stranger, {
      data: concat([poolSwapTest.bytecode.object, encodeAbiParameters([{ type: 'address' }], [poolManager])]),
    });
    const otherRouter = deployed.contractAddress as Address;
    const [claimBefore, tokensBefore] = [await claimOf(router), await tokensOf(stranger.address)];
    const receipt = await send(stranger, {
      to: otherRouter,
      value: 10n ** 15n,
      data: encodeFunctionData({
        abi: poolSwapTest.abi,
        functionName: 'swap',
        args: [
          key,
          { zeroForOne: true, amountSpecified: -(10n ** 15n), sqrtPriceLimitX96: 4295128740n },
          { takeClaims: false, settleUsingBurn: false },
          '0x',
        ],
      }),
    });
    expect(receipt.status).toBe('success');
    expect((await tokensOf(stranger.address)) - tokensBefore).toBeGreaterThan(0n);
    expect(await claimOf(router)).toBe(claimBefore);
    expect(await claimOf(feeRecipient)).toBe(0n);
  });

  it('settles every accrued claim to the fixed recipient when anyone asks, exactly once', async () => {
    const accrued = await claimOf(router);
    expect(accrued).toBeGreaterThan(initialBuyFee);
    const [recipientBefore, managerBefore] = [
      await reader.getBalance({ address: feeRecipient }),
      await reader.getBalance({ address: poolManager }),
    ];
    // A stranger (neither the recipient, the controller nor the deployer) triggers it and receives nothing.
    const strangerBefore = await reader.getBalance({ address: stranger.address });
    const receipt = await send(stranger, { to: router, data: routerCall('settlePlatformFees', []) });
    expect(receipt.status).toBe('success');
    const settled = parseEventLogs({ abi: launchStampRouterAbi, logs: receipt.logs, eventName: 'PlatformFeesSettled' });
    expect(settled.map((e) => e.args)).toEqual([
      { recipient: feeRecipient, caller: stranger.address, amount: accrued },
    ]);
    expect((await reader.getBalance({ address: feeRecipient })) - recipientBefore).toBe(accrued);
    expect(managerBefore - (await reader.getBalance({ address: poolManager }))).toBe(accrued);
    expect(strangerBefore - (await reader.getBalance({ address: stranger.address }))).toBe(
      receipt.gasUsed * receipt.effectiveGasPrice,
    );
    expect(await claimOf(router)).toBe(0n);
    expect(await claimOf(feeRecipient)).toBe(0n);

    // A second settlement finds nothing and pays nothing.
    const recipientAfter = await reader.getBalance({ address: feeRecipient });
    const again = await send(trader, { to: router, data: routerCall('settlePlatformFees', []) });
    expect(again.status).toBe('success');
    expect(parseEventLogs({ abi: launchStampRouterAbi, logs: again.logs, eventName: 'PlatformFeesSettled' })).toEqual(
      [],
    );
    expect(await reader.getBalance({ address: feeRecipient })).toBe(recipientAfter);
    expect(await claimOf(router)).toBe(0n);
  });

  it('offers API keys no way to claim: the capabilities say so and no operation claims fees', async () => {
    const s = await startServer({ platformFeeRecipient: feeRecipient });
    try {
      const r = await call(`${s.url}/v4/chains/4663/capabilities`);
      expect(r.status, r.text).toBe(200);
      expect(r.json.feePolicy).toEqual({
        policyId: 'Native20',
        feeBps: 20,
        basis: 'gross_native_amount',
        rounding: 'up_to_next_wei',
        chargedPer: 'successful_buy_or_sell',
        chargedOn: 'launch_stamp_router_trades',
        recipient: feeRecipient,
        creatorFeesAdditional: true,
        lpFeesAdditional: true,
        claimableByApiKey: false,
        admissionProvesRevenue: false,
      });
      expect(r.json.scopes.reservedDisabled).toEqual(['fees:claim', 'buybacks:manage']);
    } finally {
      await s.close();
    }
    for (const api of ['service', 'developer-api']) {
      const doc = JSON.parse(
        readFileSync(new URL(`../../generated/openapi/${api}.bundled.json`, import.meta.url), 'utf8'),
      ) as { paths: Record<string, Record<string, { operationId?: string }>> };
      for (const [path, operations] of Object.entries(doc.paths)) {
        expect(path).not.toMatch(/fee|claim/i);
        for (const op of Object.values(operations)) expect(op.operationId ?? '').not.toMatch(/fee|claim/i);
      }
    }
  });
});
