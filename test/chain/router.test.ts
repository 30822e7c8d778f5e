import { readFileSync } from 'node:fs';
import {
  type Abi,
  type Address,
  type Chain,
  createPublicClient,
  createWalletClient,
  decodeErrorResult,
  defineChain,
  encodeAbiParameters,
  encodeFunctionData,
  type Hex,
  http,
  keccak256,
  parseAbi,
  parseEventLogs,
  type TransactionReceipt,
  toHex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  exampleHookAbi,
  exampleTokenAbi,
  graphFactoryAbi,
  launchStampRouterAbi,
  permitAuthorityAbi,
} from '../../generated/contracts/abis.ts';
import { launchPermitTypedData } from '../../src/chain/launch-permit.ts';
import { describeRevert } from '../../src/chain/revert.ts';
import { addressHookBits, mineHookSalt, predictGraphTarget } from '../../src/core/create2.ts';
import { devnetOperatorKey } from '../../src/devnet/anvil.ts';
import { devnetPermitAttesterKey, startDevnet } from '../../src/devnet/devnet.ts';

const example = JSON.parse(
  readFileSync(new URL('../../spec/examples/custom-launch-create-request.v4.json', import.meta.url), 'utf8'),
);
const account1Key: Hex = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const account0 = privateKeyToAccount(devnetOperatorKey);
/** Anvil's well-known account 1 (funded; also the devnet's platform fee recipient). */
const account1 = privateKeyToAccount(account1Key);
const zeroAddress: Address = '0x0000000000000000000000000000000000000000';
const errorAbi = [...launchStampRouterAbi, ...permitAuthorityAbi, ...graphFactoryAbi].filter(
  (item) => item.type === 'error',
) as Abi;
const poolManagerClaimsAbi = parseAbi(['function balanceOf(address owner, uint256 id) view returns (uint256)']);

const targetsOf = (): any[] => example.graphBundle.targets;
const roleIndex = (role: string) => targetsOf().findIndex((t) => t.role === role);
const [tokenIndex, hookIndex, initializerIndex] = [roleIndex('token'), roleIndex('hook'), roleIndex('initializer')];
const hookMask: number = targetsOf()[hookIndex].hookPermissions.mask;
const runtimeOf = (index: number) => targetsOf()[index].runtimeBytecode as Hex;
const exampleSalts = {
  token: targetsOf()[tokenIndex].create2Salt as Hex,
  hook: targetsOf()[hookIndex].create2Salt as Hex,
  initializer: targetsOf()[initializerIndex].create2Salt as Hex,
};
const exampleIntent = `0x${example.launchIntentHash.slice('sha256:'.length)}` as Hex;
const exampleValue = BigInt(example.fundingPlan.walletTransactionValueWei);
const initialBuyWei = BigInt(example.fundingPlan.nativeAllocations.initialBuyWei);
const minTokenOut = BigInt(example.fundingPlan.initialBuy.minTokenOut);

let freshCounter = 0;
/** A bytes32 nobody used yet in this file (fresh launch intents and create2 salts). */
const fresh = (label: string): Hex => keccak256(toHex(`router.test ${label} ${freshCounter++} ${Date.now()}`));

interface LaunchOptions {
  /** LaunchParams fields over the example's. */
  params?: Record<string, unknown>;
  /** Permit fields over the server's permit (signed). */
  permit?: Record<string, unknown>;
  /** Permit fields changed after signing. */
  permitAfterSigning?: Record<string, unknown>;
  salts?: { token?: Hex; hook?: Hex; initializer?: Hex };
  /** msg.value, when it should differ from permit.value. */
  value?: bigint;
  signerKey?: Hex;
  from?: typeof account0;
}

describe('the launch stamp router on a fresh devnet', () => {
  let devnet: Awaited<ReturnType<typeof startDevnet>>;
  let reader: any;
  let router: Address;
  let factory: Address;
  let poolManager: Address;
  let permitAuthority: Address;
  let chain: Chain;
  /** A hook salt other than the example's that still puts the hook at the example's mask. */
  let minedHookSalt: Hex;

  beforeAll(async () => {
    devnet = await startDevnet();
    const { contracts } = devnet.deployment;
    router = contracts.platformLaunchStampRouter.address;
    factory = contracts.graphFactory.address;
    poolManager = contracts.poolManager.address;
    permitAuthority = contracts.permitAuthority.address;
    chain = defineChain({
      id: 4663,
      name: 'devnet',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [devnet.deployment.rpcUrl] } },
    });
    reader = createPublicClient({ chain, transport: http() });
    minedHookSalt = mineHookSalt(factory, router, runtimeOf(hookIndex), hookMask, 1_000_000n);
  }, 120_000);

  afterAll(async () => {
    await devnet?.stop();
  });

  /** Builds the router call the server would authorize for the example, with overridable params and permit. */
  async function buildLaunch(options: LaunchOptions = {}) {
    const from = options.from ?? account0;
    const [finalized, latest] = await Promise.all([
      reader.getBlock({ blockTag: 'finalized' }),
      reader.getBlock({ blockTag: 'latest' }),
    ]);
    const launchIntentHash = (options.params?.launchIntentHash as Hex | undefined) ?? fresh('intent');
    const lm = example.liquidityModel;
    const params = {
      launchIntentHash,
      lpFee: lm.lpFeePips,
      tickSpacing: lm.tickSpacing,
      sqrtPriceX96: BigInt(lm.initialSqrtPriceX96),
      tokenSupply: BigInt(lm.tokenLiquidityAmount),
      liquidityNative: BigInt(example.fundingPlan.nativeAllocations.initialLiquidityWei),
      initialBuyNative: initialBuyWei,
      minTokenOut,
      hookMask,
      tokenIndex,
      hookIndex,
      initializerIndex,
      ...options.params,
    };
    const permit = {
      launchIntentHash,
      wallet: from.address,
      value: exampleValue,
      checkpointBlockNumber: finalized.number as bigint,
      checkpointBlockHash: finalized.hash as Hex,
      issuedAt: latest.timestamp as bigint,
      expiresAt: (latest.timestamp as bigint) + 3600n,
      ...options.permit,
    };
    const signature = await privateKeyToAccount(options.signerKey ?? devnetPermitAttesterKey).signTypedData({
      ...launchPermitTypedData(permitAuthority),
      message: permit,
    });
    const sentPermit = { ...permit, ...options.permitAfterSigning };
    const salts = {
      token: options.salts?.token ?? fresh('token salt'),
      hook: options.salts?.hook ?? minedHookSalt,
      initializer: options.salts?.initializer ?? fresh('initializer salt'),
    };
    const saltAt = [] as Hex[];
    saltAt[tokenIndex] = salts.token;
    saltAt[hookIndex] = salts.hook;
    saltAt[initializerIndex] = salts.initializer;
    const targets = targetsOf().map((t, i) => ({ runtimeCode: t.runtimeBytecode as Hex, salt: saltAt[i] as Hex }));
    const args = [params, targets, sentPermit, signature] as any;
    const data = encodeFunctionData({ abi: launchStampRouterAbi, functionName: 'launch', args });
    const predicted = {
      token: predictGraphTarget(factory, router, salts.token, runtimeOf(tokenIndex)),
      hook: predictGraphTarget(factory, router, salts.hook, runtimeOf(hookIndex)),
      initializer: predictGraphTarget(factory, router, salts.initializer, runtimeOf(initializerIndex)),
    };
    return { from, data, args, value: options.value ?? permit.value, params, permit: sentPermit, salts, predicted };
  }

  type Launch = Awaited<ReturnType<typeof buildLaunch>>;

  /** eth_call of the launch (no nonce consumed); returns the decoded revert. */
  async function revertOf(launch: Launch): Promise<{ errorName: string; args: readonly unknown[]; described: string }> {
    let caught: unknown;
    try {
      await reader.call({ account: launch.from.address, to: router, data: launch.data, value: launch.value });
    } catch (err) {
      caught = err;
    }
    expect(caught, 'the launch call should revert').toBeDefined();
    let data: Hex | null = null;
    for (let e: any = caught; e && typeof e === 'object'; e = e.cause) {
      if (typeof e.data === 'string' && e.data.startsWith('0x')) {
        data = e.data as Hex;
        break;
      }
    }
    expect(data, String(caught)).toMatch(/^0x[0-9a-f]{8}/i);
    const decoded = decodeErrorResult({ abi: errorAbi, data: data as Hex });
    return { errorName: decoded.errorName, args: decoded.args ?? [], described: describeRevert(data) };
  }

  async function expectNothingDeployed(launch: Launch) {
    for (const address of Object.values(launch.predicted)) {
      const code = await reader.getCode({ address });
      expect(code === undefined || code === '0x', `code at ${address}`).toBe(true);
    }
  }

  async function expectRevert(launch: Launch, errorName: string) {
    const revert = await revertOf(launch);
    expect(revert.errorName, revert.described).toBe(errorName);
    expect(revert.described.startsWith(`${errorName}(`)).toBe(true);
    await expectNothingDeployed(launch);
    return revert;
  }

  /** Sends a launch for real, retrying when the devnet's price publisher (also account 0) took the nonce. */
  async function send(launch: Launch, gas?: bigint): Promise<TransactionReceipt> {
    const wallet = createWalletClient({ account: launch.from, chain, transport: http() });
    for (let attempt = 0; ; attempt++) {
      try {
        const hash = await wallet.sendTransaction({
          chain,
          to: router,
          data: launch.data,
          value: launch.value,
          ...(gas === undefined ? {} : { gas }),
        });
        return await reader.waitForTransactionReceipt({ hash });
      } catch (err) {
        if (attempt >= 3 || !/nonce/i.test(String(err))) throw err;
      }
    }
  }

  it('launches the spec example: stamps it, opens the pool at the hook mask, pays the fee claim, keeps no native', async () => {
    const launch = await buildLaunch({
      params: { launchIntentHash: exampleIntent },
      salts: exampleSalts,
    });
    expect(addressHookBits(launch.predicted.hook)).toBe(hookMask);
    const feeRecipient = devnet.deployment.platformFeeRecipient;
    const claimOf = (owner: Address): Promise<bigint> =>
      reader.readContract({
        address: poolManager,
        abi: poolManagerClaimsAbi,
        functionName: 'balanceOf',
        args: [owner, 0n],
      });
    const claimBefore = await claimOf(feeRecipient);
    expect(claimBefore).toBe(0n);
    expect(await claimOf(router)).toBe(0n);

    const receipt = await send(launch);
    expect(receipt.status).toBe('success');

    const stamped = parseEventLogs({ abi: launchStampRouterAbi, logs: receipt.logs, eventName: 'LaunchStamped' });
    expect(stamped).toHaveLength(1);
    const args = stamped[0]?.args as any;
    expect(args.launchIntentHash).toBe(exampleIntent);
    expect(args.controller).toBe(account0.address);
    expect(args.token.toLowerCase()).toBe(launch.predicted.token);
    expect(args.hook.toLowerCase()).toBe(launch.predicted.hook);
    // The hook's address carries the example's permission mask (0xC0: beforeSwap | afterSwap) in its low 14 bits.
    expect(hookMask).toBe(192);
    expect(Number(BigInt(args.hook) & 0x3fffn)).toBe(hookMask);
    // The pool id is keccak256(abi.encode(PoolKey(native, token, 3000, 60, hook))).
    const poolId = keccak256(
      encodeAbiParameters(
        [{ type: 'address' }, { type: 'address' }, { type: 'uint24' }, { type: 'int24' }, { type: 'address' }],
        [zeroAddress, args.token, 3000, 60, args.hook],
      ),
    );
    expect(args.poolId).toBe(poolId);
    // The hook saw the initial buy: the pool manager called it around the swap.
    for (const functionName of ['swapsStarted', 'swapsFinished'] as const) {
      expect(await reader.readContract({ address: args.hook, abi: exampleHookAbi, functionName })).toBe(1n);
    }

    const tokens: bigint = await reader.readContract({
      address: args.token,
      abi: exampleTokenAbi,
      functionName: 'balanceOf',
      args: [account0.address],
    });
    expect(args.tokensOut).toBeGreaterThanOrEqual(minTokenOut);
    expect(tokens).toBeGreaterThanOrEqual(minTokenOut);
    expect(tokens).toBeGreaterThanOrEqual(args.tokensOut);

    // 20 bps of the gross initial buy, rounded up, as a PoolManager claim on native (id 0) the router holds for the
    // platform until anyone settles it to the fixed recipient (test/chain/platform-fee.test.ts settles).
    const fee = (initialBuyWei * 20n + 9_999n) / 10_000n;
    expect(fee).toBe(2_000_000_000_000n);
    expect(args.platformFee).toBe(fee);
    expect(await claimOf(router)).toBe(fee);
    expect(
      await reader.readContract({ address: router, abi: launchStampRouterAbi, functionName: 'accruedPlatformFees' }),
    ).toBe(fee);
    expect(await claimOf(feeRecipient)).toBe(claimBefore);

    // The router keeps no native value and no tokens.
    expect(await reader.getBalance({ address: router })).toBe(0n);
    expect(
      await reader.readContract({
        address: args.token,
        abi: exampleTokenAbi,
        functionName: 'balanceOf',
        args: [router],
      }),
    ).toBe(0n);
    expect(
      await reader.readContract({
        address: router,
        abi: launchStampRouterAbi,
        functionName: 'launched',
        args: [exampleIntent],
      }),
    ).toBe(true);

    // The same permit again: the launch intent is stamped once.
    const replay = await revertOf(launch);
    expect(replay.errorName, replay.described).toBe('LaunchAlreadyStamped');
    expect(replay.args).toEqual([exampleIntent]);
  }, 120_000);

  it('simulates a fresh launch (fresh intent and salts, hook salt mined to the mask) to the predicted addresses', async () => {
    const launch = await buildLaunch();
    expect(launch.salts.hook).not.toBe(exampleSalts.hook);
    expect(addressHookBits(launch.predicted.hook)).toBe(hookMask);
    const { result } = await reader.simulateContract({
      account: launch.from.address,
      address: router,
      abi: launchStampRouterAbi,
      functionName: 'launch',
      args: launch.args,
      value: launch.value,
    });
    const [token, hook, poolId] = result as [Address, Address, Hex];
    expect(token.toLowerCase()).toBe(launch.predicted.token);
    expect(hook.toLowerCase()).toBe(launch.predicted.hook);
    expect(poolId).toMatch(/^0x[0-9a-f]{64}$/);
    await expectNothingDeployed(launch);
  }, 120_000);

  it('refuses an expired permit (PermitExpired)', async () => {
    const latest = await reader.getBlock({ blockTag: 'latest' });
    const launch = await buildLaunch({
      permit: { issuedAt: latest.timestamp - 3000n, expiresAt: latest.timestamp - 1n },
    });
    const revert = await expectRevert(launch, 'PermitExpired');
    expect(revert.args[0]).toBe(latest.timestamp - 1n);
  }, 120_000);

  it('refuses a permit living longer than one hour (PermitLifetimeTooLong at 3601 s)', async () => {
    const latest = await reader.getBlock({ blockTag: 'latest' });
    const launch = await buildLaunch({
      permit: { issuedAt: latest.timestamp, expiresAt: latest.timestamp + 3601n },
    });
    const revert = await expectRevert(launch, 'PermitLifetimeTooLong');
    expect(revert.args).toEqual([latest.timestamp, latest.timestamp + 3601n]);
  }, 120_000);

  it('refuses a permit signed by another key or altered after signing (PermitSignatureInvalid)', async () => {
    await expectRevert(await buildLaunch({ signerKey: account1Key }), 'PermitSignatureInvalid');
    // The wallet raises the permitted value after signing (and sends it): the signature no longer matches.
    await expectRevert(
      await buildLaunch({ permitAfterSigning: { value: exampleValue * 2n }, value: exampleValue * 2n }),
      'PermitSignatureInvalid',
    );
  }, 120_000);

  it('refuses a permit issued to another wallet (PermitWalletMismatch)', async () => {
    const launch = await buildLaunch({ permit: { wallet: account1.address } });
    expect(launch.from.address).toBe(account0.address);
    const revert = await expectRevert(launch, 'PermitWalletMismatch');
    expect(revert.args).toEqual([account1.address, account0.address]);
  }, 120_000);

  it('refuses a msg.value other than the permitted value (PermitValueMismatch)', async () => {
    const launch = await buildLaunch({ value: exampleValue + 1n });
    const revert = await expectRevert(launch, 'PermitValueMismatch');
    expect(revert.args).toEqual([exampleValue, exampleValue + 1n]);
  }, 120_000);

  it('refuses launch params for another launch intent than the permit (PermitIntentMismatch)', async () => {
    const permitted = fresh('permitted intent');
    const requested = fresh('requested intent');
    const launch = await buildLaunch({
      params: { launchIntentHash: requested },
      permit: { launchIntentHash: permitted },
    });
    const revert = await expectRevert(launch, 'PermitIntentMismatch');
    expect(revert.args).toEqual([permitted, requested]);
  }, 120_000);

  it('refuses a checkpoint that is not a past block (PermitCheckpointNotPast)', async () => {
    const latest = await reader.getBlock({ blockTag: 'latest' });
    const launch = await buildLaunch({
      permit: { checkpointBlockNumber: latest.number + 1n, checkpointBlockHash: latest.hash },
    });
    const revert = await expectRevert(launch, 'PermitCheckpointNotPast');
    expect(revert.args[0]).toBe(latest.number + 1n);
    expect(revert.args[0] as bigint).toBeGreaterThanOrEqual(revert.args[1] as bigint);
  }, 120_000);

  it('refuses a hook whose address does not carry the hook mask (HookAddressMismatch)', async () => {
    const unmined: Hex = toHex(1n, { size: 32 });
    const launch = await buildLaunch({ salts: { hook: unmined } });
    const bits = addressHookBits(launch.predicted.hook);
    expect(bits).not.toBe(0xc0);
    expect(launch.params.hookMask).toBe(0xc0);
    const revert = await expectRevert(launch, 'HookAddressMismatch');
    expect(revert.args).toEqual([0xc0, bits]);
  }, 120_000);

  it('refuses an initial buy without a minimum output (MinimumOutputZero)', async () => {
    const launch = await buildLaunch({ params: { minTokenOut: 0n } });
    expect(launch.params.initialBuyNative).toBeGreaterThan(0n);
    await expectRevert(launch, 'MinimumOutputZero');
  }, 120_000);

  it('refuses an initial buy below its minimum output (InitialBuyBelowMinimum)', async () => {
    const huge = 10n ** 30n;
    const launch = await buildLaunch({ params: { minTokenOut: huge } });
    const revert = await expectRevert(launch, 'InitialBuyBelowMinimum');
    expect(revert.args[1]).toBe(huge);
    expect(revert.args[0] as bigint).toBeGreaterThan(0n);
    expect(revert.args[0] as bigint).toBeLessThan(huge);
  }, 120_000);

  it('a reverted launch transaction mined on chain leaves no graph code and no stamp', async () => {
    // Account 1 sends for real (fixed gas, so the wallet does not refuse on estimation): the buy misses its minimum.
    const launch = await buildLaunch({ from: account1, params: { minTokenOut: 10n ** 30n } });
    const balanceBefore: bigint = await reader.getBalance({ address: account1.address });
    const receipt = await send(launch, 5_000_000n);
    expect(receipt.status).toBe('reverted');
    await expectNothingDeployed(launch);
    expect(
      await reader.readContract({
        address: router,
        abi: launchStampRouterAbi,
        functionName: 'launched',
        args: [launch.params.launchIntentHash],
      }),
    ).toBe(false);
    expect(await reader.getBalance({ address: router })).toBe(0n);
    // Only gas left the wallet; the value came back with the revert.
    const gasPaid = receipt.gasUsed * receipt.effectiveGasPrice;
    expect(await reader.getBalance({ address: account1.address })).toBe(balanceBefore - gasPaid);
  }, 120_000);
});
