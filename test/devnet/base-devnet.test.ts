import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Abi,
  type Address,
  concat,
  createPublicClient,
  createWalletClient,
  decodeErrorResult,
  encodeAbiParameters,
  encodeFunctionData,
  encodePacked,
  type Hex,
  hashDomain,
  http,
  keccak256,
  type PublicClient,
  parseAbi,
  parseEventLogs,
  parseSignature,
  toHex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  baseGraphFactoryAbi,
  baseLaunchRouterAbi,
  devnetUsdAbi,
  permitAuthorityAbi,
} from '../../generated/contracts/abis.ts';
import { readBaseDeployment } from '../../src/chain/base-deployment.ts';
import { chain1 } from '../../src/chain/chain.ts';
import { launchPermitTypedData } from '../../src/chain/launch-permit.ts';
import { loadConfig } from '../../src/config.ts';
import { mineBaseHookSalt, predictBaseGraphTarget } from '../../src/core/base-graph.ts';
import { addressHookBits } from '../../src/core/create2.ts';
import { devnetOperatorKey } from '../../src/devnet/anvil.ts';
import {
  type BaseDevnetDeployment,
  baseDevnetServerEnv,
  devnetUsdInitialSupply,
  startBaseDevnet,
} from '../../src/devnet/base-devnet.ts';
import { devnetPermitAttesterKey } from '../../src/devnet/devnet.ts';
import { artifact } from '../../src/solidity/artifacts.ts';
import { compileSolidity } from '../../src/solidity/compile-contracts.ts';

const port = 20946;
const account0 = privateKeyToAccount(devnetOperatorKey);
/** Anvil's well-known account 1: a signer other than the controller. */
const account1Key: Hex = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
/** Anvil's well-known account 2: the funding recipient of the launches here. */
const fundingRecipient: Address = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const zeroAddress: Address = '0x0000000000000000000000000000000000000000';
const errorAbi = [...baseLaunchRouterAbi, ...permitAuthorityAbi, ...baseGraphFactoryAbi, ...devnetUsdAbi].filter(
  (item) => item.type === 'error',
) as Abi;
const poolManagerStateAbi = parseAbi(['function extsload(bytes32 slot) view returns (bytes32)']);
const erc20Abi = parseAbi(['function balanceOf(address owner) view returns (uint256)']);

/** The deterministic addresses: anvil's account 0 deploys them with CREATE at its nonces 0 to 4. */
const expectedAddresses = {
  poolManager: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
  permitAuthority: '0xe7f1725e7734ce288f8367e1bb143e90bb3f0512',
  graphFactory: '0x9fe46736679d2d9a65f0992f2272de9f3c7fa6e0',
  launchRouter: '0xcf7ed3acca5a467e9e704c703e8d87f634fb0fc9',
  fundingToken: '0xdc64a140aa3e981100a9beca4e685f962f0cf6c9',
};

/** A token for the router primitive: its constructor mints the whole supply to the router it is given. */
const primitiveTokenSource = `// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.26;
contract PrimitiveToken {
    mapping(address => uint256) public balanceOf;
    constructor(address router, uint256 supply) { balanceOf[router] = supply; }
    function transfer(address to, uint256 value) external returns (bool) {
        balanceOf[msg.sender] -= value;
        balanceOf[to] += value;
        return true;
    }
}
`;

let freshCounter = 0;
/** A bytes32 nobody used yet in this file (launch intents, salts, authorization nonces). */
const fresh = (label: string): Hex => keccak256(toHex(`base-devnet.test ${label} ${freshCounter++} ${Date.now()}`));

const receiveWithAuthorizationTypes = {
  ReceiveWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

/** The decoded custom error of a reverted call, wherever viem's error chain carries the revert data. */
function revertNameOf(err: unknown): string {
  for (let e: any = err; e && typeof e === 'object'; e = e.cause) {
    if (typeof e.data === 'string' && e.data.startsWith('0x') && e.data.length >= 10) {
      return decodeErrorResult({ abi: errorAbi, data: e.data as Hex }).errorName;
    }
  }
  throw new Error(`no revert data in ${String(err)}`);
}

async function revertOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (err) {
    return revertNameOf(err);
  }
  throw new Error('the call did not revert');
}

describe('base-layer configuration', () => {
  it.each([
    ['unset', undefined, []],
    ['two URLs', 'http://a.example,http://b.example', ['http://a.example', 'http://b.example']],
    ['one URL', 'http://a.example', 'exactly two'],
    ['three URLs', 'http://a.example,http://b.example,http://c.example', 'exactly two'],
    ['a URL that is not http', 'http://a.example,ftp://b.example', 'exactly two'],
  ])('CHAIN_1_RPC_URLS %s', (_name, given, want) => {
    const env = given === undefined ? {} : { CHAIN_1_RPC_URLS: given, BASE_DEPLOYMENT_PATH: '/x/base-deployment.json' };
    if (typeof want === 'string') expect(() => loadConfig(env)).toThrow(want);
    else expect(loadConfig(env).chain1RpcUrls).toEqual(want);
  });

  it.each([
    ['unset', undefined, 3600],
    ['below the minimum', '59', 'from 60 to 86400'],
    ['the minimum', '60', 60],
    ['the maximum', '86400', 86_400],
    ['above the maximum', '86401', 'from 60 to 86400'],
    ['not a number', 'soon', 'non-negative integer'],
  ])('V3_FUNDING_AUTHORIZATION_WINDOW_SECONDS %s', (_name, given, want) => {
    const env = given === undefined ? {} : { V3_FUNDING_AUTHORIZATION_WINDOW_SECONDS: given };
    if (typeof want === 'string') expect(() => loadConfig(env)).toThrow(want);
    else expect(loadConfig(env).v3.fundingAuthorizationWindowSeconds).toBe(want);
  });

  it('refuses CHAIN_1_RPC_URLS without BASE_DEPLOYMENT_PATH', () => {
    expect(() => loadConfig({ CHAIN_1_RPC_URLS: 'http://a.example,http://b.example' })).toThrow(
      'CHAIN_1_RPC_URLS needs BASE_DEPLOYMENT_PATH',
    );
  });

  const adapter = '0x00000000000000000000000000000000000000aa';
  it.each([
    ['unset', undefined, []],
    ['an empty list', '[]', []],
    ['the profile itself', '[{"adapter":null,"profileVersion":"3.3.0"}]', [{ adapter: null, profileVersion: '3.3.0' }]],
    [
      'an adapter (stored lowercase)',
      `[{"adapter":"${adapter.toUpperCase().replace('0X', '0x')}","profileVersion":"3.4.0"}]`,
      [{ adapter, profileVersion: '3.4.0' }],
    ],
    ['not JSON', '[{', 'V3_FEE_CERTIFICATIONS must be'],
    ['not a list', '{"adapter":null,"profileVersion":"3.3.0"}', 'V3_FEE_CERTIFICATIONS must be'],
    ['an unknown profile', '[{"adapter":null,"profileVersion":"3.5.0"}]', 'V3_FEE_CERTIFICATIONS must be'],
    ['a short address', '[{"adapter":"0xaa","profileVersion":"3.3.0"}]', 'V3_FEE_CERTIFICATIONS must be'],
    ['an extra field', '[{"adapter":null,"profileVersion":"3.3.0","share":1000}]', 'V3_FEE_CERTIFICATIONS must be'],
  ])('V3_FEE_CERTIFICATIONS %s', (_name, given, want) => {
    const env = given === undefined ? {} : { V3_FEE_CERTIFICATIONS: given };
    if (typeof want === 'string') expect(() => loadConfig(env)).toThrow(want);
    else expect(loadConfig(env).v3.feeCertifications).toEqual(want);
  });

  it.each([
    ['unset', undefined, false],
    ['true', 'true', true],
    ['false', 'false', false],
    ['anything else', 'yes', 'true or false'],
  ])('V3_PROFILE_340_ACTIVE %s', (_name, given, want) => {
    const env = given === undefined ? {} : { V3_PROFILE_340_ACTIVE: given };
    if (typeof want === 'string') expect(() => loadConfig(env)).toThrow(want);
    else expect(loadConfig(env).v3.profile340Active).toBe(want);
  });

  it('reads BASE_DEPLOYMENT_PATH, and a base deployment document only when every field is right', () => {
    expect(loadConfig({}).baseDeploymentPath).toBeNull();
    expect(loadConfig({ BASE_DEPLOYMENT_PATH: '/x/base-deployment.json' }).baseDeploymentPath).toBe(
      '/x/base-deployment.json',
    );
    const dir = mkdtempSync(join(tmpdir(), 'base-deployment-'));
    const binding = { address: expectedAddresses.poolManager, runtimeCodeHash: `0x${'ab'.repeat(32)}` };
    const good = {
      chainId: 1,
      rpcUrl: 'http://127.0.0.1:1',
      permitAttester: expectedAddresses.permitAuthority,
      contracts: {
        poolManager: binding,
        permitAuthority: binding,
        graphFactory: binding,
        launchRouter: binding,
        fundingToken: { ...binding, name: 'Devnet USD', version: '2', symbol: 'dUSD', decimals: 6 },
      },
    };
    const cases: Array<[string, unknown, string | null]> = [
      ['the good document', good, null],
      ['chain id 4663', { ...good, chainId: 4663 }, 'chainId must be 1'],
      [
        'a short address',
        { ...good, contracts: { ...good.contracts, launchRouter: { ...binding, address: '0x12' } } },
        'contracts.launchRouter.address',
      ],
      [
        'no token version',
        { ...good, contracts: { ...good.contracts, fundingToken: { ...good.contracts.fundingToken, version: '' } } },
        'contracts.fundingToken.version',
      ],
      [
        'fractional decimals',
        { ...good, contracts: { ...good.contracts, fundingToken: { ...good.contracts.fundingToken, decimals: 6.5 } } },
        'decimals',
      ],
    ];
    for (const [name, doc, want] of cases) {
      const path = join(dir, `${name}.json`);
      writeFileSync(path, JSON.stringify(doc));
      if (want === null) expect(readBaseDeployment(path), name).toEqual(good);
      else expect(() => readBaseDeployment(path), name).toThrow(want);
    }
  });
});

describe('the local base-layer devnet (chain 1)', () => {
  let devnet: Awaited<ReturnType<typeof startBaseDevnet>>;
  let deployment: BaseDevnetDeployment;
  let outputDir: string;
  let reader: PublicClient;
  let wallet: ReturnType<typeof createWalletClient>;
  let router: Address;
  let factory: Address;
  let dusd: Address;
  let saltStart = 0n;

  beforeAll(async () => {
    outputDir = mkdtempSync(join(tmpdir(), 'base-devnet-'));
    devnet = await startBaseDevnet({ port, outputDir });
    deployment = devnet.deployment;
    const chain = chain1(deployment.rpcUrl);
    reader = createPublicClient({ chain, transport: http() }) as PublicClient;
    wallet = createWalletClient({ account: account0, chain, transport: http() });
    router = deployment.contracts.launchRouter.address;
    factory = deployment.contracts.graphFactory.address;
    dusd = deployment.contracts.fundingToken.address;
  }, 60_000);

  afterAll(async () => {
    await devnet?.stop();
  });

  it('answers chain id 0x1 and lags safe by 32 and finalized by 64 blocks', async () => {
    const r = await fetch(deployment.rpcUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    });
    expect(((await r.json()) as { result: string }).result).toBe('0x1');
    const [latest, safe, finalized] = await Promise.all([
      reader.getBlock({ blockTag: 'latest' }),
      reader.getBlock({ blockTag: 'safe' }),
      reader.getBlock({ blockTag: 'finalized' }),
    ]);
    expect(latest.number).toBeGreaterThanOrEqual(105n);
    expect(latest.number - safe.number).toBe(32n);
    expect(latest.number - finalized.number).toBe(64n);
  });

  it('deploys at the same addresses with the same runtime code on every start, and writes the document', async () => {
    const addresses = Object.fromEntries(Object.entries(deployment.contracts).map(([k, b]) => [k, b.address]));
    expect(addresses).toEqual(expectedAddresses);
    for (const binding of Object.values(deployment.contracts)) {
      expect(keccak256((await reader.getCode({ address: binding.address })) ?? '0x')).toBe(binding.runtimeCodeHash);
    }
    expect(deployment).toMatchObject({
      chainId: 1,
      operator: account0.address,
      permitAttester: privateKeyToAccount(devnetPermitAttesterKey).address,
      contracts: { fundingToken: { name: 'Devnet USD', version: '2', symbol: 'dUSD', decimals: 6 } },
    });
    const env = baseDevnetServerEnv(deployment, outputDir);
    expect(env.CHAIN_1_RPC_URLS).toBe(`${deployment.rpcUrl},${deployment.rpcUrl}`);
    expect(loadConfig(env).chain1RpcUrls).toEqual([deployment.rpcUrl, deployment.rpcUrl]);
    const { operator: _operator, ...withoutOperator } = deployment;
    expect(readBaseDeployment(env.BASE_DEPLOYMENT_PATH as string)).toEqual(withoutOperator);

    // The committed fixture (the conformance server's base layer without a chain) is this very deployment.
    const fixture = readBaseDeployment(fileURLToPath(new URL('../fixtures/base-deployment.json', import.meta.url)));
    expect(fixture.contracts).toEqual(deployment.contracts);
    expect(fixture.permitAttester).toBe(deployment.permitAttester);

    const second = await startBaseDevnet({ port: port + 1 });
    try {
      expect({ ...second.deployment, rpcUrl: '' }).toEqual({ ...deployment, rpcUrl: '' });
    } finally {
      await second.stop();
    }
  }, 40_000);

  it('gives account 0 the dUSD supply under the EIP-712 domain Devnet USD, version 2, chain 1', async () => {
    const read = (functionName: string, args: unknown[] = []) =>
      reader.readContract({ address: dusd, abi: devnetUsdAbi, functionName, args } as any) as Promise<any>;
    expect(await read('balanceOf', [account0.address])).toBeGreaterThan(0n);
    expect(await read('totalSupply')).toBe(devnetUsdInitialSupply);
    expect([await read('name'), await read('symbol'), await read('decimals')]).toEqual(['Devnet USD', 'dUSD', 6]);
    const [fields, name, version, chainId, verifyingContract, salt, extensions] = await read('eip712Domain');
    expect([fields, name, version, chainId, verifyingContract.toLowerCase(), salt, extensions]).toEqual([
      '0x0f',
      'Devnet USD',
      '2',
      1n,
      dusd,
      `0x${'0'.repeat(64)}`,
      [],
    ]);
    expect(await read('DOMAIN_SEPARATOR')).toBe(
      hashDomain({
        domain: { name: 'Devnet USD', version: '2', chainId: 1n, verifyingContract: dusd },
        types: {
          EIP712Domain: [
            { name: 'name', type: 'string' },
            { name: 'version', type: 'string' },
            { name: 'chainId', type: 'uint256' },
            { name: 'verifyingContract', type: 'address' },
          ],
        },
      }),
    );
  });

  interface LaunchOptions {
    platformShare?: number;
    /** Funding fields over the default authorization (signed as given). */
    funding?: Partial<{ value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex }>;
    fundingSignerKey?: Hex;
    withoutFunding?: boolean;
    /** The router primitive: the token's init code mints the supply to the router; no initializer. */
    primitiveTokenInitCode?: Hex;
  }

  const liquidityNative = 10n ** 18n;
  /** The permit's value: the liquidity and a remainder the router returns. */
  const launchValue = liquidityNative + 10n ** 17n;
  const tokenSupply = 10n ** 27n;
  /** About 1e9 token units per native unit, the ratio of the supply to the liquidity. */
  const sqrtPriceX96 = 31_623n * 2n ** 96n;
  const hookMask = 0x00c0;

  /** The router call of a 3-target launch (or a 2-target router primitive) with a signed permit and funding. */
  async function buildLaunch(options: LaunchOptions = {}) {
    const [finalized, latest] = await Promise.all([
      reader.getBlock({ blockTag: 'finalized' }),
      reader.getBlock({ blockTag: 'latest' }),
    ]);
    const launchIntentHash = fresh('intent');
    const permit = {
      launchIntentHash,
      wallet: account0.address,
      value: launchValue,
      checkpointBlockNumber: finalized.number as bigint,
      checkpointBlockHash: finalized.hash as Hex,
      issuedAt: latest.timestamp,
      expiresAt: latest.timestamp + 600n,
    };
    const permitTypedData = launchPermitTypedData(deployment.contracts.permitAuthority.address);
    const permitSignature = await privateKeyToAccount(devnetPermitAttesterKey).signTypedData({
      ...permitTypedData,
      domain: { ...permitTypedData.domain, chainId: 1 },
      message: permit,
    });
    const authorization = {
      value: 25_000_000n,
      validAfter: latest.timestamp - 60n,
      validBefore: latest.timestamp + 3600n,
      nonce: fresh('funding nonce'),
      ...options.funding,
    };
    const fundingSignature = await privateKeyToAccount(options.fundingSignerKey ?? devnetOperatorKey).signTypedData({
      domain: { name: 'Devnet USD', version: '2', chainId: 1, verifyingContract: dusd },
      types: receiveWithAuthorizationTypes,
      primaryType: 'ReceiveWithAuthorization',
      message: { from: account0.address, to: router, ...authorization },
    });
    const funding = options.withoutFunding
      ? {
          token: zeroAddress,
          recipient: zeroAddress,
          value: 0n,
          validAfter: 0n,
          validBefore: 0n,
          nonce: `0x${'0'.repeat(64)}` as Hex,
          signature: '0x' as Hex,
        }
      : { token: dusd, recipient: fundingRecipient, ...authorization, signature: fundingSignature };
    const hookInitCode = artifact('ExampleHook').bytecode;
    saltStart += 10_000_000n;
    const hookSalt = mineBaseHookSalt(factory, router, keccak256(hookInitCode), hookMask, saltStart);
    const primitive = options.primitiveTokenInitCode !== undefined;
    const targets = [
      { initCode: options.primitiveTokenInitCode ?? artifact('ExampleToken').bytecode, salt: fresh('token salt') },
      { initCode: hookInitCode, salt: hookSalt },
      ...(primitive ? [] : [{ initCode: artifact('ExampleInitializer').bytecode, salt: fresh('initializer salt') }]),
    ];
    const params = {
      launchIntentHash,
      lpFee: 3000,
      tickSpacing: 60,
      sqrtPriceX96,
      tokenSupply,
      liquidityNative,
      hookMask,
      tokenIndex: 0,
      hookIndex: 1,
      initializerIndex: primitive ? 255 : 2,
      platformShareHundredthsBip: options.platformShare ?? 0,
    };
    const token = predictBaseGraphTarget(
      factory,
      router,
      targets[0]?.salt as Hex,
      keccak256(targets[0]?.initCode as Hex),
    );
    const hook = predictBaseGraphTarget(factory, router, hookSalt, keccak256(hookInitCode));
    return { args: [params, targets, permit, permitSignature, funding] as const, funding, token, hook, params };
  }

  type Launch = Awaited<ReturnType<typeof buildLaunch>>;
  const simulate = (launch: Launch) =>
    reader.simulateContract({
      account: account0,
      address: router,
      abi: baseLaunchRouterAbi,
      functionName: 'launch',
      args: launch.args as any,
      value: launchValue,
    });

  async function send(launch: Launch) {
    const hash = await wallet.writeContract({
      chain: wallet.chain,
      account: account0,
      address: router,
      abi: baseLaunchRouterAbi,
      functionName: 'launch',
      args: launch.args as any,
      value: launchValue,
    });
    const receipt = await reader.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    return receipt;
  }

  const dusdBalance = (owner: Address) =>
    reader.readContract({ address: dusd, abi: erc20Abi, functionName: 'balanceOf', args: [owner] });
  const authorizationState = (nonce: Hex) =>
    reader.readContract({
      address: dusd,
      abi: devnetUsdAbi,
      functionName: 'authorizationState',
      args: [account0.address, nonce],
    });

  /** The pool's packed slot0 in the PoolManager (v4-core StateLibrary: pools at slot 6). */
  async function slot0Of(poolId: Hex): Promise<bigint> {
    const slot = keccak256(encodePacked(['bytes32', 'bytes32'], [poolId, toHex(6, { size: 32 })]));
    return BigInt(
      await reader.readContract({
        address: deployment.contracts.poolManager.address,
        abi: poolManagerStateAbi,
        functionName: 'extsload',
        args: [slot],
      }),
    );
  }

  it('launches a 3-target graph with native liquidity and EIP-3009 funding paid to the recipient, in one transaction', async () => {
    const launch = await buildLaunch({ platformShare: 1000 });
    expect(addressHookBits(launch.hook)).toBe(hookMask);
    const [recipientBefore, controllerBefore] = await Promise.all([
      dusdBalance(fundingRecipient),
      dusdBalance(account0.address),
    ]);
    const receipt = await send(launch);
    const poolKey = encodeAbiParameters(
      [{ type: 'address' }, { type: 'address' }, { type: 'uint24' }, { type: 'int24' }, { type: 'address' }],
      [zeroAddress, launch.token, 3000, 60, launch.hook],
    );
    const poolId = keccak256(poolKey);
    const stamped = parseEventLogs({ abi: baseLaunchRouterAbi, logs: receipt.logs, eventName: 'LaunchStamped' });
    expect(stamped).toHaveLength(1);
    expect(stamped[0]?.args).toEqual({
      launchIntentHash: launch.params.launchIntentHash,
      controller: account0.address,
      poolId,
      token: expect.any(String),
      hook: expect.any(String),
      platformShareHundredthsBip: 1000,
      fundingToken: expect.any(String),
      fundingValue: 25_000_000n,
    });
    expect(
      [stamped[0]?.args.token, stamped[0]?.args.hook, stamped[0]?.args.fundingToken].map((a) => a?.toLowerCase()),
    ).toEqual([launch.token, launch.hook, dusd]);
    const used = parseEventLogs({ abi: devnetUsdAbi, logs: receipt.logs, eventName: 'AuthorizationUsed' });
    expect(used.map((l) => l.args)).toEqual([{ authorizer: account0.address, nonce: launch.funding.nonce }]);
    expect(await dusdBalance(fundingRecipient)).toBe(recipientBefore + 25_000_000n);
    expect(await dusdBalance(account0.address)).toBe(controllerBefore - 25_000_000n);
    expect(await dusdBalance(router)).toBe(0n);
    expect(await authorizationState(launch.funding.nonce)).toBe(true);
    // The pool exists at the given price, and the router stamped its share.
    expect((await slot0Of(poolId)) & ((1n << 160n) - 1n)).toBe(sqrtPriceX96);
    expect(
      await reader.readContract({
        address: router,
        abi: baseLaunchRouterAbi,
        functionName: 'platformShareOf',
        args: [poolId],
      }),
    ).toBe(1000);
    // Native and tokens the pool did not take went back to the controller.
    expect(await reader.getBalance({ address: router })).toBe(0n);
    expect(
      await reader.readContract({ address: launch.token, abi: erc20Abi, functionName: 'balanceOf', args: [router] }),
    ).toBe(0n);
    expect(
      await reader.readContract({
        address: launch.token,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [account0.address],
      }),
    ).toBeGreaterThan(0n);
  }, 20_000);

  it('launches without funding, and as the router primitive (2 targets, the token mints to the router)', async () => {
    const plain = await buildLaunch({ withoutFunding: true });
    const receipt = await send(plain);
    const stamped = parseEventLogs({ abi: baseLaunchRouterAbi, logs: receipt.logs, eventName: 'LaunchStamped' });
    expect(stamped[0]?.args).toMatchObject({
      fundingToken: zeroAddress,
      fundingValue: 0n,
      platformShareHundredthsBip: 0,
    });

    const build = compileSolidity({ 'PrimitiveToken.sol': primitiveTokenSource }, () => undefined);
    const creation = build.contracts['PrimitiveToken.sol']?.PrimitiveToken?.bytecode as Hex;
    const initCode = concat([
      creation,
      encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [router, tokenSupply]),
    ]);
    const primitive = await buildLaunch({ primitiveTokenInitCode: initCode });
    expect(primitive.args[1]).toHaveLength(2);
    const primitiveReceipt = await send(primitive);
    expect(
      parseEventLogs({ abi: baseLaunchRouterAbi, logs: primitiveReceipt.logs, eventName: 'LaunchStamped' }),
    ).toHaveLength(1);
  }, 30_000);

  it('refuses a funding authorization by another signer, a reused nonce and an expired window', async () => {
    const wrongSigner = await buildLaunch({ fundingSignerKey: account1Key });
    expect(await revertOf(simulate(wrongSigner))).toBe('InvalidSignature');

    const first = await buildLaunch();
    await send(first);
    const reused = await buildLaunch({ funding: { nonce: first.funding.nonce } });
    expect(await revertOf(simulate(reused))).toBe('AuthorizationUsedOrCanceled');

    const latest = await reader.getBlock({ blockTag: 'latest' });
    const expired = await buildLaunch({
      funding: { validAfter: latest.timestamp - 3600n, validBefore: latest.timestamp - 1n },
    });
    expect(await revertOf(simulate(expired))).toBe('AuthorizationExpired');
    const notYet = await buildLaunch({
      funding: { validAfter: latest.timestamp + 3600n, validBefore: latest.timestamp + 7200n },
    });
    expect(await revertOf(simulate(notYet))).toBe('AuthorizationNotYetValid');
  }, 30_000);

  it('voids a nonce the holder cancels: authorizationState turns true and a launch with it reverts', async () => {
    const launch = await buildLaunch();
    expect(await authorizationState(launch.funding.nonce)).toBe(false);
    const signature = await account0.signTypedData({
      domain: { name: 'Devnet USD', version: '2', chainId: 1, verifyingContract: dusd },
      types: {
        CancelAuthorization: [
          { name: 'authorizer', type: 'address' },
          { name: 'nonce', type: 'bytes32' },
        ],
      },
      primaryType: 'CancelAuthorization',
      message: { authorizer: account0.address, nonce: launch.funding.nonce },
    });
    const { v, r, s } = parseSignature(signature);
    // Anyone may submit the holder's signed cancellation: account 1 sends it.
    const canceller = createWalletClient({
      account: privateKeyToAccount(account1Key),
      chain: wallet.chain,
      transport: http(deployment.rpcUrl),
    });
    const hash = await canceller.writeContract({
      chain: wallet.chain,
      address: dusd,
      abi: devnetUsdAbi,
      functionName: 'cancelAuthorization',
      args: [account0.address, launch.funding.nonce, Number(v), r, s],
    });
    const receipt = await reader.waitForTransactionReceipt({ hash });
    expect(
      parseEventLogs({ abi: devnetUsdAbi, logs: receipt.logs, eventName: 'AuthorizationCanceled' }).map((l) => l.args),
    ).toEqual([{ authorizer: account0.address, nonce: launch.funding.nonce }]);
    expect(await authorizationState(launch.funding.nonce)).toBe(true);
    expect(await revertOf(simulate(launch))).toBe('AuthorizationUsedOrCanceled');
  }, 20_000);

  it.each([
    ['0 hundredths of a bip', 0, null],
    ['1 hundredth of a bip', 1, 'PlatformShareInvalid'],
    ['999 hundredths of a bip', 999, 'PlatformShareInvalid'],
    ['1,000 hundredths of a bip', 1000, null],
    ['1,001 hundredths of a bip', 1001, 'PlatformShareInvalid'],
  ])('stamps a platform share of %s only when it is 0 or 1,000', async (_name, given, want) => {
    const launch = await buildLaunch({ platformShare: given });
    if (want === null) await expect(simulate(launch)).resolves.toBeDefined();
    else expect(await revertOf(simulate(launch))).toBe(want);
  });

  it('holds the EIP-3009 window strictly between validAfter and validBefore, and receiveWithAuthorization for the payee only', async () => {
    const latest = await reader.getBlock({ blockTag: 'latest' });
    const time = latest.timestamp + 1000n;
    const submit = async (validAfter: bigint, validBefore: bigint, sender: Address = account0.address) => {
      const nonce = fresh('window nonce');
      const message = { from: account0.address, to: account0.address, value: 1n, validAfter, validBefore, nonce };
      const signature = await account0.signTypedData({
        domain: { name: 'Devnet USD', version: '2', chainId: 1, verifyingContract: dusd },
        types: receiveWithAuthorizationTypes,
        primaryType: 'ReceiveWithAuthorization',
        message,
      });
      const { v, r, s } = parseSignature(signature);
      const data = encodeFunctionData({
        abi: devnetUsdAbi,
        functionName: 'receiveWithAuthorization',
        args: [message.from, message.to, 1n, validAfter, validBefore, nonce, Number(v), r, s],
      });
      return reader.call({ account: sender, to: dusd, data, blockOverrides: { time } });
    };
    const cases: Array<[string, bigint, bigint, string | null]> = [
      ['validAfter one second before', time - 1n, time + 100n, null],
      ['validAfter at the block time', time, time + 100n, 'AuthorizationNotYetValid'],
      ['validBefore one second after', time - 100n, time + 1n, null],
      ['validBefore at the block time', time - 100n, time, 'AuthorizationExpired'],
    ];
    for (const [name, validAfter, validBefore, want] of cases) {
      if (want === null) await expect(submit(validAfter, validBefore), name).resolves.toBeDefined();
      else expect(await revertOf(submit(validAfter, validBefore)), name).toBe(want);
    }
    expect(await revertOf(submit(time - 1n, time + 100n, fundingRecipient))).toBe('CallerMustBePayee');
  });
});
