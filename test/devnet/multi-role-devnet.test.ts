import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Address,
  concat,
  createPublicClient,
  createWalletClient,
  encodeAbiParameters,
  encodePacked,
  type Hex,
  http,
  keccak256,
  type PublicClient,
  parseAbi,
  parseEventLogs,
  toHex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multiRoleLaunchRouterAbi, permitAuthorityAbi, tidewaterTokenHookAbi } from '../../generated/contracts/abis.ts';
import type { MultiRoleCustomLaunchCreateRequestV2 } from '../../generated/types/service.ts';
import { chain4663 } from '../../src/chain/chain.ts';
import { type LaunchPermit, PermitAttester } from '../../src/chain/launch-permit.ts';
import { type MultiRoleDeployment, readMultiRoleDeployment } from '../../src/chain/multi-role-deployment.ts';
import {
  encodeMultiRoleRouterLaunch,
  InitCodeReverted,
  MultiRoleLaunchChain,
  multiRolePermitOfCalldata,
} from '../../src/chain/multi-role-launch-chain.ts';
import { loadConfig } from '../../src/config.ts';
import { mineBaseHookSalt, predictBaseGraphTarget } from '../../src/core/base-graph.ts';
import { addressHookBits } from '../../src/core/create2.ts';
import { predictMultiRoleLaunch } from '../../src/core/multi-role-graph.ts';
import { devnetOperatorKey } from '../../src/devnet/anvil.ts';
import { devnetPermitAttesterKey, devnetServerEnv, startDevnet } from '../../src/devnet/devnet.ts';
import { compileSolidity } from '../../src/solidity/compile-contracts.ts';

const account0 = privateKeyToAccount(devnetOperatorKey);
const attester = new PermitAttester(devnetPermitAttesterKey);
const exampleDir = fileURLToPath(new URL('../../examples/multi-role-launch/', import.meta.url));
const poolManagerStateAbi = parseAbi(['function extsload(bytes32 slot) view returns (bytes32)']);
const hookMask = 192;
const liquidityNative = 10n ** 18n;
/** The wallet transaction's value: the liquidity and a reserve the router returns. */
const launchValue = liquidityNative + 10n ** 17n;
/** TidewaterTokenHook's TOTAL_SUPPLY: it delivers exactly this. */
const tokenSupply = 10n ** 27n;
/** About 1e9 token units per native unit, the ratio of the supply to the liquidity. */
const sqrtPriceX96 = 31_623n * 2n ** 96n;

/** The V4 lanes' contracts as the devnet deployed them before the shared lane existed. */
const v4Addresses = {
  poolManager: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
  nativeUsdPriceFeed: '0xe7f1725e7734ce288f8367e1bb143e90bb3f0512',
  rootDeployer: '0x9fe46736679d2d9a65f0992f2272de9f3c7fa6e0',
  permitAuthority: '0x75537828f2ce51be7289709686A69CbFDbB714F1',
  graphFactory: '0xE451980132E65465d0a498c53f0b5227326Dd73F',
  platformLaunchStampRouter: '0x5392A33F7F677f59e833FEBF4016cDDD88fF9E67',
};

let freshCounter = 0;
/** A bytes32 nobody used yet in this file (launch intents, salts). */
const fresh = (label: string): Hex =>
  keccak256(toHex(`multi-role-devnet.test ${label} ${freshCounter++} ${Date.now()}`));

/** The example's two contracts, compiled as the packer compiles them: creation code by contract name. */
function compileExample(): { tokenHook: Hex; initializer: Hex } {
  const units = ['contracts/TidewaterTokenHook.sol', 'contracts/TidewaterInitializer.sol'];
  const build = compileSolidity(
    Object.fromEntries(units.map((unit) => [unit, readFileSync(join(exampleDir, unit), 'utf8')])),
    () => undefined,
  );
  return {
    tokenHook: build.contracts['contracts/TidewaterTokenHook.sol']?.TidewaterTokenHook?.bytecode as Hex,
    initializer: build.contracts['contracts/TidewaterInitializer.sol']?.TidewaterInitializer?.bytecode as Hex,
  };
}

describe('the shared lane on the chain-4663 devnet', () => {
  let devnet: Awaited<ReturnType<typeof startDevnet>>;
  let lane: MultiRoleDeployment;
  let outputDir: string;
  let reader: PublicClient;
  let wallet: ReturnType<typeof createWalletClient>;
  let chain: MultiRoleLaunchChain;
  let code: { tokenHook: Hex; initializer: Hex };
  let saltStart = 0n;

  beforeAll(async () => {
    outputDir = mkdtempSync(join(tmpdir(), 'multi-role-devnet-'));
    devnet = await startDevnet({ outputDir });
    lane = devnet.multiRoleDeployment;
    const viemChain = chain4663(lane.rpcUrl);
    reader = createPublicClient({ chain: viemChain, transport: http() }) as PublicClient;
    wallet = createWalletClient({ account: account0, chain: viemChain, transport: http() });
    chain = new MultiRoleLaunchChain([lane.rpcUrl, lane.rpcUrl], lane);
    code = compileExample();
  }, 90_000);

  afterAll(async () => {
    await devnet?.stop();
  });

  it('deploys the lane identically on every start, equal to the fixture, and leaves the V4 deployment as it was', async () => {
    const env = devnetServerEnv(devnet.deployment, outputDir);
    expect(env.MULTI_ROLE_DEPLOYMENT_PATH).toBe(join(outputDir, 'multi-role-deployment.json'));
    expect(loadConfig(env).multiRoleDeploymentPath).toBe(env.MULTI_ROLE_DEPLOYMENT_PATH);
    expect(readMultiRoleDeployment(env.MULTI_ROLE_DEPLOYMENT_PATH as string)).toEqual(lane);
    // The committed fixture (the conformance server's shared lane without a chain) is this very deployment.
    const fixture = readMultiRoleDeployment(
      fileURLToPath(new URL('../fixtures/multi-role-deployment.json', import.meta.url)),
    );
    expect({ ...fixture, rpcUrl: '' }).toEqual({ ...lane, rpcUrl: '' });
    expect(lane).toMatchObject({
      chainId: 4663,
      permitAttester: privateKeyToAccount(devnetPermitAttesterKey).address,
      contracts: { poolManager: devnet.deployment.contracts.poolManager },
    });
    for (const binding of Object.values(lane.contracts)) {
      expect(keccak256((await reader.getCode({ address: binding.address })) ?? '0x')).toBe(binding.runtimeCodeHash);
    }
    // A permit authority of its own, with its own EIP-712 domain.
    expect(lane.contracts.permitAuthority.address).not.toBe(devnet.deployment.contracts.permitAuthority.address);
    expect(lane.contracts.graphFactory.address).not.toBe(devnet.deployment.contracts.graphFactory.address);
    const router = (functionName: 'poolManager' | 'graphFactory' | 'permitAuthority') =>
      reader.readContract({
        address: lane.contracts.launchRouter.address,
        abi: multiRoleLaunchRouterAbi,
        functionName,
      });
    expect(
      (await Promise.all([router('poolManager'), router('graphFactory'), router('permitAuthority')])).map((a) =>
        a.toLowerCase(),
      ),
    ).toEqual(
      [
        lane.contracts.poolManager.address,
        lane.contracts.graphFactory.address,
        lane.contracts.permitAuthority.address,
      ].map((a) => a.toLowerCase()),
    );
    // The lane's deployment is final: the agreed finalized checkpoint lies after the router's code exists.
    const checkpoint = await chain.agreedFinalizedCheckpoint();
    expect(await reader.getCode({ address: lane.contracts.launchRouter.address, blockNumber: checkpoint.number })).toBe(
      await reader.getCode({ address: lane.contracts.launchRouter.address }),
    );

    // The V4 lanes' addresses and their chain-deployment document are those the V4 example was packed against.
    expect(Object.fromEntries(Object.entries(devnet.deployment.contracts).map(([k, b]) => [k, b.address]))).toEqual(
      v4Addresses,
    );
    const v4Example = JSON.parse(
      readFileSync(
        fileURLToPath(new URL('../../spec/examples/custom-launch-create-request.v4.json', import.meta.url)),
        'utf8',
      ),
    ) as { chainDeployment: unknown };
    expect(devnet.chainDeployment).toEqual(v4Example.chainDeployment);

    const second = await startDevnet();
    try {
      expect({ ...second.multiRoleDeployment, rpcUrl: '' }).toEqual({ ...lane, rpcUrl: '' });
      expect(second.chainDeployment).toEqual(devnet.chainDeployment);
    } finally {
      await second.stop();
    }
  }, 90_000);

  /** The example graph as the packer builds it: [token_hook, initializer], the token_hook's salt mined for mask 192. */
  function exampleGraph() {
    const { launchRouter, graphFactory, poolManager } = lane.contracts;
    const initializerInitCode = concat([
      code.initializer,
      encodeAbiParameters([{ type: 'address' }], [launchRouter.address]),
    ]);
    const initializerSalt = fresh('initializer salt');
    const initializer = predictBaseGraphTarget(
      graphFactory.address,
      launchRouter.address,
      initializerSalt,
      keccak256(initializerInitCode),
    );
    const tokenHookInitCode = concat([
      code.tokenHook,
      encodeAbiParameters([{ type: 'address' }, { type: 'address' }], [poolManager.address, initializer]),
    ]);
    saltStart += 10_000_000n;
    const tokenHookSalt = mineBaseHookSalt(
      graphFactory.address,
      launchRouter.address,
      keccak256(tokenHookInitCode),
      hookMask,
      saltStart,
    );
    const request = {
      graph: {
        targets: [
          { role: 'token_hook', salt: tokenHookSalt, initCodeHash: keccak256(tokenHookInitCode) },
          { role: 'initializer', salt: initializerSalt, initCodeHash: keccak256(initializerInitCode) },
        ],
      },
      liquidity: { lpFee: 3000, tickSpacing: 60 },
    } as unknown as Pick<MultiRoleCustomLaunchCreateRequestV2, 'graph' | 'liquidity'>;
    const predicted = predictMultiRoleLaunch(request, graphFactory.address, launchRouter.address);
    return {
      targets: [
        { initCode: tokenHookInitCode, salt: tokenHookSalt },
        { initCode: initializerInitCode, salt: initializerSalt },
      ],
      initializer,
      ...predicted,
    };
  }

  /** A permit for `launchIntentHash` at the agreed finalized checkpoint, valid for 10 minutes of chain time. */
  async function permitFor(launchIntentHash: Hex): Promise<LaunchPermit> {
    const [checkpoint, latest] = await Promise.all([chain.agreedFinalizedCheckpoint(), chain.latestBlock()]);
    return {
      launchIntentHash,
      wallet: account0.address,
      value: launchValue,
      checkpointBlockNumber: checkpoint.number,
      checkpointBlockHash: checkpoint.hash,
      issuedAt: latest.timestamp,
      expiresAt: latest.timestamp + 600n,
    };
  }

  function launchCall(
    launchIntentHash: Hex,
    graph: ReturnType<typeof exampleGraph>,
    permit: LaunchPermit,
    signature: Hex,
  ) {
    const data = encodeMultiRoleRouterLaunch(
      {
        launchIntentHash,
        lpFee: 3000,
        tickSpacing: 60,
        sqrtPriceX96,
        tokenSupply,
        liquidityNative,
        hookMask,
        tokenHookIndex: 0,
        initializerIndex: 1,
      },
      graph.targets,
      permit,
      signature,
    );
    return { from: account0.address, to: lane.contracts.launchRouter.address, value: launchValue, data };
  }

  /** The pool's packed slot0 in the PoolManager (v4-core StateLibrary: pools at slot 6). */
  async function slot0Of(poolId: Hex): Promise<bigint> {
    const slot = keccak256(encodePacked(['bytes32', 'bytes32'], [poolId, toHex(6, { size: 32 })]));
    return BigInt(
      await reader.readContract({
        address: lane.contracts.poolManager.address,
        abi: poolManagerStateAbi,
        functionName: 'extsload',
        args: [slot],
      }),
    );
  }

  const tokenBalance = (token: Address, owner: Address) =>
    reader.readContract({ address: token, abi: tidewaterTokenHookAbi, functionName: 'balanceOf', args: [owner] });

  it('launches the example graph in one router transaction and refuses the same intent a second time', async () => {
    const { launchRouter, poolManager } = lane.contracts;
    const graph = exampleGraph();
    expect(addressHookBits(graph.tokenHook)).toBe(hookMask);
    const launchIntentHash = fresh('intent');
    const permit = await permitFor(launchIntentHash);
    const call = launchCall(
      launchIntentHash,
      graph,
      permit,
      await attester.sign(lane.contracts.permitAuthority.address, permit),
    );
    expect(multiRolePermitOfCalldata(call.data)).toEqual(permit);
    const simulated = await chain.simulate(call);
    expect(simulated).toMatchObject({ ok: true });

    const [walletBefore, managerNativeBefore] = await Promise.all([
      reader.getBalance({ address: account0.address }),
      reader.getBalance({ address: poolManager.address }),
    ]);
    const hash = await wallet.sendTransaction({ chain: wallet.chain, account: account0, ...call });
    const receipt = await reader.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');

    // The token_hook sits at the mined address with mask 192 and is the pool's currency1 and hooks.
    const tokenHookCode = await reader.getCode({ address: graph.tokenHook });
    expect(tokenHookCode?.length).toBeGreaterThan(2);
    const stamped = parseEventLogs({
      abi: multiRoleLaunchRouterAbi,
      logs: receipt.logs,
      eventName: 'MultiRoleLaunchStamped',
    });
    expect(stamped.map((l) => l.args)).toEqual([
      { launchIntentHash, controller: account0.address, poolId: graph.poolId, tokenHook: expect.any(String) },
    ]);
    expect(stamped[0]?.args.tokenHook.toLowerCase()).toBe(graph.tokenHook.toLowerCase());
    expect((await slot0Of(graph.poolId)) & ((1n << 160n) - 1n)).toBe(sqrtPriceX96);

    // Liquidity placed: the PoolManager holds the native and the tokens the position took.
    const managerNative = (await reader.getBalance({ address: poolManager.address })) - managerNativeBefore;
    const managerTokens = await tokenBalance(graph.tokenHook, poolManager.address);
    expect(managerNative).toBeGreaterThan(0n);
    expect(managerNative).toBeLessThanOrEqual(liquidityNative);
    expect(managerTokens).toBeGreaterThan(0n);
    // Remainders returned: the router keeps nothing; the controller paid only what the pool took, plus gas.
    expect(await reader.getBalance({ address: launchRouter.address })).toBe(0n);
    expect(await tokenBalance(graph.tokenHook, launchRouter.address)).toBe(0n);
    expect(await tokenBalance(graph.tokenHook, account0.address)).toBe(tokenSupply - managerTokens);
    const gasPaid = receipt.gasUsed * receipt.effectiveGasPrice;
    expect(walletBefore - (await reader.getBalance({ address: account0.address }))).toBe(managerNative + gasPaid);

    // MultiRoleLaunchChain reads the stamp back with its exact transaction.
    const stamps = await chain.stamps(launchIntentHash, receipt.blockNumber, receipt.blockNumber);
    expect(stamps).toHaveLength(1);
    expect(stamps[0]?.poolId).toBe(graph.poolId);
    expect(stamps[0]?.tokenHook.toLowerCase()).toBe(graph.tokenHook.toLowerCase());
    expect(stamps[0]?.transaction).toMatchObject({
      hash,
      value: launchValue,
      input: call.data,
      blockNumber: receipt.blockNumber,
    });
    expect(await chain.stamps(fresh('other intent'), receipt.blockNumber, receipt.blockNumber)).toEqual([]);
    expect(await chain.receiptStatus(hash)).toBe('success');
    expect(
      (await chain.walletTransactions(account0.address, receipt.blockNumber, receipt.blockNumber)).map((t) => t.hash),
    ).toEqual([hash]);

    // The same intent, with a fresh permit and fresh salts, is refused.
    const again = await permitFor(launchIntentHash);
    const second = launchCall(
      launchIntentHash,
      exampleGraph(),
      again,
      await attester.sign(lane.contracts.permitAuthority.address, again),
    );
    expect(await chain.simulate(second)).toEqual({
      ok: false,
      revert: expect.stringContaining('LaunchAlreadyStamped'),
    });
  }, 60_000);

  it('refuses a V4-domain permit at the lane router, and a lane permit at the V4 permit authority', async () => {
    const launchIntentHash = fresh('intent');
    const permit = await permitFor(launchIntentHash);
    const v4Authority = devnet.deployment.contracts.permitAuthority.address;
    const v4Signature = await attester.sign(v4Authority, permit);
    expect(await chain.simulate(launchCall(launchIntentHash, exampleGraph(), permit, v4Signature))).toEqual({
      ok: false,
      revert: expect.stringContaining('PermitSignatureInvalid'),
    });
    const laneSignature = await attester.sign(lane.contracts.permitAuthority.address, permit);
    const check = (authority: Address, signature: Hex) =>
      reader.readContract({
        address: authority,
        abi: permitAuthorityAbi,
        functionName: 'check',
        args: [permit, signature],
      });
    await expect(check(lane.contracts.permitAuthority.address, laneSignature)).resolves.toBeUndefined();
    await expect(check(v4Authority, laneSignature)).rejects.toThrow('PermitSignatureInvalid');
  }, 30_000);

  it('reads the token_hook runtime code its constructor returns, and the economics it answers', async () => {
    const graph = exampleGraph();
    const factory = lane.contracts.graphFactory.address;
    const runtime = await chain.deployedRuntimeCode(graph.targets[0]?.initCode as Hex, factory);
    // The immutable pool manager is filled in the returned code.
    expect(runtime.toLowerCase()).toContain(lane.contracts.poolManager.address.slice(2).toLowerCase());
    expect(keccak256(runtime)).not.toBe(keccak256(code.tokenHook));
    const economics = await chain.economicsOf(graph.tokenHook, runtime);
    expect(economics).toEqual({
      totalSupply: tokenSupply,
      rateMode: 0,
      buyRateHundredthsBip: 0,
      sellRateHundredthsBip: 0,
      feeRecipient: account0.address,
    });
    // A contract without multiRoleEconomics (the initializer: no such function, no fallback), code answering 32 bytes
    // (too short to decode) and code that reverts outright have no economics.
    const initializerRuntime = await chain.deployedRuntimeCode(graph.targets[1]?.initCode as Hex, factory);
    const answers32Bytes: Hex = '0x60206000f3';
    const revertsOutright: Hex = '0x60006000fd';
    for (const runtimeCode of [initializerRuntime, answers32Bytes, revertsOutright]) {
      expect(await chain.economicsOf(graph.initializer, runtimeCode), runtimeCode.slice(0, 12)).toBeNull();
    }
    await expect(chain.deployedRuntimeCode(revertsOutright, factory)).rejects.toBeInstanceOf(InitCodeReverted);
    // A provider that does not answer throws instead of saying "no economics".
    const unreachable = new MultiRoleLaunchChain(['http://127.0.0.1:1', 'http://127.0.0.1:1'], lane);
    await expect(unreachable.economicsOf(graph.tokenHook, runtime)).rejects.toThrow();
    expect(await chain.gasPrice()).toBeGreaterThan(0n);
  }, 30_000);
});
