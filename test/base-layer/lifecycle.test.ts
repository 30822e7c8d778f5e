import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  getAddress,
  type Hex,
  http,
  keccak256,
  type PublicClient,
  parseAbi,
  parseSignature,
  toHex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseLaunchRouterAbi, devnetUsdAbi } from '../../generated/contracts/abis.ts';
import type { CustomLaunchCreateRequestV3 } from '../../generated/types/service.ts';
import { mintWalletKey, type Principal } from '../../src/auth/keys.ts';
import { BaseLaunchChain, basePermitOfCalldata } from '../../src/chain/base-launch-chain.ts';
import { chain1 } from '../../src/chain/chain.ts';
import { chainGatesConfigFrom } from '../../src/chain/chain-gates-config.ts';
import { fundingTokenReader } from '../../src/chain/funding-token.ts';
import { PermitAttester } from '../../src/chain/launch-permit.ts';
import { loadConfig } from '../../src/config.ts';
import { mineBaseHookSalt } from '../../src/core/base-graph.ts';
import { fundingAuthorizationNonceOf as fundingNonceOf } from '../../src/core/funding-authorization.ts';
import { devnetOperatorKey } from '../../src/devnet/anvil.ts';
import { baseDevnetServerEnv, startBaseDevnet } from '../../src/devnet/base-devnet.ts';
import { devnetPermitAttesterKey } from '../../src/devnet/devnet.ts';
import { submitFundingAuthorization } from '../../src/domain/base-layer/funding-authorization.ts';
import {
  type BaseLaunchStatus,
  baseLaunchRow,
  baseLaunchTransitions,
} from '../../src/domain/base-layer/launch-store.ts';
import type { BaseLifecycleContext } from '../../src/domain/base-layer/lifecycle-context.ts';
import { scheduleBaseJob } from '../../src/domain/base-layer/lifecycle-jobs.ts';
import { BaseLayerLifecycleWorker } from '../../src/domain/base-layer/lifecycle-worker.ts';
import { pinnedBaseLaunchRules } from '../../src/domain/base-layer/pinned-rules.ts';
import { BaseLayerTracker } from '../../src/domain/base-layer/tracker.ts';
import { listFinalizedV3 } from '../../src/domain/launches/finalized-feed-v3.ts';
import { type Db, openDatabase } from '../../src/store/db.ts';
import { runAdmin } from '../support/admin.ts';
import { storeBaseLaunch } from '../support/base-layer-lifecycle.ts';
import { baseHookMask, baseLayerRequest, sealBaseLayerRequest } from '../support/base-layer-request.ts';
import { auth, call } from '../support/http.ts';
import { testLifecycle } from '../support/lifecycle.ts';
import { startServerProcess } from '../support/process.ts';

const port = 20_871;
const account0 = privateKeyToAccount(devnetOperatorKey);
/** Anvil's well-known account 2: the EIP-3009 funding recipient. */
const fundingRecipient: Address = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const erc20Abi = parseAbi(['function balanceOf(address owner) view returns (uint256)']);
const fundingWindowSeconds = 60;

const dir = mkdtempSync(join(tmpdir(), 'base-lifecycle-'));
let devnet: Awaited<ReturnType<typeof startBaseDevnet>>;
let env: Record<string, string>;
let reader: PublicClient;
let wallet: ReturnType<typeof createWalletClient>;
let testClient: ReturnType<typeof createTestClient>;
let db: Db;
let ctx: BaseLifecycleContext;
let worker: BaseLayerLifecycleWorker;
let tracker: BaseLayerTracker;
/** The injected clock's offset from the wall clock, in ms (the funding window tests move it). */
let skewMs = 0;
let nonce = 0;

beforeAll(async () => {
  devnet = await startBaseDevnet({ port, outputDir: dir });
  env = { ...baseDevnetServerEnv(devnet.deployment, dir), PERMIT_ATTESTER_KEY: devnetPermitAttesterKey };
  const chain = chain1(devnet.deployment.rpcUrl);
  reader = createPublicClient({ chain, transport: http() }) as PublicClient;
  wallet = createWalletClient({ account: account0, chain, transport: http() });
  testClient = createTestClient({ chain, mode: 'anvil', transport: http() });
  db = openDatabase(join(dir, 'in-process.sqlite'));
  const config = loadConfig(env);
  const baseChain = new BaseLaunchChain(config.chain1RpcUrls, devnet.deployment);
  const now = () => Date.now() + skewMs;
  ctx = {
    db,
    rules: pinnedBaseLaunchRules(devnet.deployment, config.v3.feeCertifications),
    chain: baseChain,
    attester: new PermitAttester(devnetPermitAttesterKey),
    now,
    fundingWindowSeconds,
  };
  worker = new BaseLayerLifecycleWorker(ctx, { workerId: 'worker-1', lifecycle: testLifecycle, random: () => 0 });
  tracker = new BaseLayerTracker({ db, chain: baseChain, now, workerId: 'tracker-1', maxBlocksPerPoll: 500 });
}, 60_000);

afterAll(async () => {
  db?.close();
  await devnet?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * A fresh request of account 0: a new nonce (a new launch intent) and new salts, so its graph lands at addresses no
 * earlier launch of this devnet took (the hook's salt mined anew for its mask).
 */
function request(options: Parameters<typeof baseLayerRequest>[0] = {}): CustomLaunchCreateRequestV3 {
  nonce += 1;
  const base = baseLayerRequest({ launchWallet: account0.address.toLowerCase(), nonce: String(nonce), ...options });
  const { graphFactory, launchRouter } = devnet.deployment.contracts;
  const targets = base.graph.targets.map((t) => ({
    ...t,
    salt:
      t.role === 'hook'
        ? mineBaseHookSalt(
            graphFactory.address,
            launchRouter.address,
            t.initCodeHash as Hex,
            baseHookMask,
            BigInt(nonce) * 1_000_000n,
          )
        : keccak256(toHex(`lifecycle.test ${t.targetId} ${nonce}`)),
  }));
  return sealBaseLayerRequest({ ...base, graph: { ...base.graph, targets } });
}

const statusOf = (launchId: string) => baseLaunchRow(db, launchId)?.status;
const jobOf = (launchId: string) =>
  db.prepare('SELECT state, attempt, last_error_code FROM v3_lifecycle_jobs WHERE launch_id = ?').get(launchId);

/** Ticks the worker and the tracker until the launch has `status` (or a terminal status it was not meant to). */
async function driveTo(launchId: string, status: BaseLaunchStatus, maxTicks = 40): Promise<void> {
  for (let i = 0; i < maxTicks; i++) {
    if (statusOf(launchId) === status) return;
    if (['failed', 'cancelled', 'finalized'].includes(statusOf(launchId) ?? '')) break;
    const worked = await worker.tick();
    if (!worked) await tracker.tick();
  }
  const row = baseLaunchRow(db, launchId);
  throw new Error(
    `launch ${launchId} is ${row?.status}, not ${status}: ${row?.failure_json ?? row?.finding_codes_json}`,
  );
}

/** Account 0 broadcasts a transaction to the router and waits for it to be mined (reverted or not). */
async function broadcast(tx: { to: string; valueWei: string; data: string }): Promise<void> {
  const hash = await wallet.sendTransaction({
    chain: wallet.chain,
    account: account0,
    to: tx.to as Address,
    value: BigInt(tx.valueWei),
    data: tx.data as Hex,
    gas: 8_000_000n,
  });
  await reader.waitForTransactionReceipt({ hash });
}

function boundTransaction(launchId: string): {
  chainId: string;
  from: string;
  to: string;
  valueWei: string;
  data: string;
} {
  return JSON.parse(baseLaunchRow(db, launchId)?.wallet_transaction_json ?? 'null');
}

/** Account 0's signature of a launch's funding typed data, as a wallet's eth_signTypedData_v4 gives it. */
function signTypedDataOf(typedData: any): Promise<Hex> {
  const { domain, message, primaryType, types } = typedData;
  const { EIP712Domain: _domain, ...messageTypes } = types;
  return account0.signTypedData({
    domain: { ...domain, verifyingContract: domain.verifyingContract as Address },
    types: messageTypes,
    primaryType,
    message: {
      ...message,
      value: BigInt(message.value),
      validAfter: BigInt(message.validAfter),
      validBefore: BigInt(message.validBefore),
    },
  });
}

/** Signs the launch's funding typed data with account 0 and submits it (submitFundingAuthorizationV3's domain call). */
async function signFunding(launchId: string, principal: Principal): Promise<void> {
  const funding = JSON.parse(baseLaunchRow(db, launchId)?.funding_authorization_json ?? 'null');
  const signature = await signTypedDataOf(funding.typedData);
  const dusd = devnet.deployment.contracts.fundingToken.address;
  const resource = await submitFundingAuthorization(
    { db, now: ctx.now, reader: fundingTokenReader(devnet.deployment.rpcUrl) },
    principal,
    launchId,
    signature,
  );
  expect(resource.status).toBe('funding_authorization_verified');
  expect(resource.fundingAuthorization?.token).toBe(dusd);
}

/** Account 0 cancels one of its EIP-3009 authorization nonces on dUSD (cancelAuthorization). */
async function cancelFundingNonce(nonceToCancel: Hex): Promise<void> {
  const dusd = devnet.deployment.contracts.fundingToken.address;
  const signature = await account0.signTypedData({
    domain: { name: 'Devnet USD', version: '2', chainId: 1, verifyingContract: dusd },
    types: {
      CancelAuthorization: [
        { name: 'authorizer', type: 'address' },
        { name: 'nonce', type: 'bytes32' },
      ],
    },
    primaryType: 'CancelAuthorization',
    message: { authorizer: account0.address, nonce: nonceToCancel },
  });
  const { r, s, v } = parseSignature(signature);
  const hash = await wallet.writeContract({
    chain: wallet.chain,
    account: account0,
    address: dusd,
    abi: devnetUsdAbi,
    functionName: 'cancelAuthorization',
    args: [account0.address, nonceToCancel, Number(v), r, s],
  });
  await reader.waitForTransactionReceipt({ hash });
}

describe('the base-layer lifecycle on chain 1 (in process, real anvil and SQLite)', () => {
  it('takes a native launch from received to finalized with the exact transaction and writes the feed row', async () => {
    const { launchId } = storeBaseLaunch(db, request());
    await driveTo(launchId, 'authorized');
    expect(baseLaunchTransitions(db, launchId).map((t) => t.to)).toEqual([
      'validating',
      'pending_review',
      'prepared',
      'simulating',
      'authorized',
    ]);
    const tx = boundTransaction(launchId);
    expect(tx).toMatchObject({
      chainId: '1',
      from: account0.address.toLowerCase(),
      to: devnet.deployment.contracts.launchRouter.address,
      valueWei: '1000000000000000000',
    });
    await broadcast(tx);
    await driveTo(launchId, 'submitted');
    await testClient.mine({ blocks: 65 });
    await driveTo(launchId, 'finalized');
    const row = baseLaunchRow(db, launchId);
    const output = JSON.parse(row?.public_output_json ?? 'null');
    expect(output).toEqual({
      tokenAddress: expect.stringMatching(/^0x[0-9a-f]{40}$/),
      hookAddress: expect.stringMatching(/^0x[0-9a-f]{40}$/),
      poolId: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    expect(JSON.parse(row?.chain_evidence_json ?? 'null')).toMatchObject({
      transactionHash: expect.stringMatching(/^0x/),
    });
    const page = listFinalizedV3(db, 25, undefined);
    expect(page.quality.status).toBe('complete');
    expect(page.launches.find((l) => l.launchId === launchId)).toMatchObject({
      launchProfileVersion: '3.3.0',
      chainId: '1',
      tokenAddress: output.tokenAddress,
      hookAddress: output.hookAddress,
    });
  }, 60_000);

  it('asks an eip3009 launch for its funding authorization, then pays the recipient in the launch transaction', async () => {
    const dusd = devnet.deployment.contracts.fundingToken.address;
    const amount = 25_000_000n;
    const { launchId, principal } = storeBaseLaunch(
      db,
      request({
        funding: {
          mode: 'eip3009',
          valueWei: '1000000000000000000',
          token: dusd,
          amount: amount.toString(),
          recipient: fundingRecipient.toLowerCase(),
        },
      }),
    );
    await driveTo(launchId, 'awaiting_funding_authorization');
    const row = baseLaunchRow(db, launchId);
    const typedData = JSON.parse(row?.funding_authorization_json ?? 'null').typedData;
    expect(typedData.domain).toEqual({ name: 'Devnet USD', version: '2', chainId: 1, verifyingContract: dusd });
    expect(typedData.message).toMatchObject({
      from: account0.address.toLowerCase(),
      to: devnet.deployment.contracts.launchRouter.address,
      value: amount.toString(),
      validAfter: '0',
      nonce: fundingNonceOf(launchId, row?.launch_intent_hash as string),
    });
    const validBefore = Number(typedData.message.validBefore);
    expect(validBefore - Math.floor(ctx.now() / 1000)).toBeGreaterThanOrEqual(fundingWindowSeconds - 5);
    expect(validBefore - Math.floor(ctx.now() / 1000)).toBeLessThanOrEqual(fundingWindowSeconds);
    // The job idles: nothing moves the launch until the signature arrives.
    expect(await worker.tick()).toBe(false);
    await signFunding(launchId, principal);
    await driveTo(launchId, 'authorized');
    const before = await reader.readContract({
      address: dusd,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [fundingRecipient],
    });
    await broadcast(boundTransaction(launchId));
    await driveTo(launchId, 'submitted');
    await testClient.mine({ blocks: 65 });
    await driveTo(launchId, 'finalized');
    const after = await reader.readContract({
      address: dusd,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [fundingRecipient],
    });
    expect(after - before).toBe(amount);
    expect(baseLaunchTransitions(db, launchId).map((t) => t.to)).toEqual([
      'validating',
      'pending_review',
      'awaiting_funding_authorization',
      'funding_authorization_verified',
      'prepared',
      'simulating',
      'authorized',
      'submitted',
      'finalized',
    ]);
    // The finalizing transaction also lists the launch's token in the public registry the developer API reads.
    const finalizedRow = baseLaunchRow(db, launchId);
    const token = getAddress(JSON.parse(finalizedRow?.public_output_json ?? '{}').tokenAddress);
    const metadata = JSON.parse(finalizedRow?.request_bytes.toString('utf8') ?? '{}').projectMetadata;
    const decimals = await reader
      .readContract({
        address: token,
        abi: parseAbi(['function decimals() view returns (uint8)']),
        functionName: 'decimals',
      })
      .catch(() => null);
    expect(
      db
        .prepare(
          'SELECT lane, chain_id, token_address, token_name, token_symbol, token_decimals FROM public_launches WHERE launch_id = ?',
        )
        .get(launchId),
    ).toEqual({
      lane: 'v3',
      chain_id: '1',
      token_address: token,
      token_name: metadata.name,
      token_symbol: metadata.symbol,
      token_decimals: decimals,
    });
  }, 60_000);

  it('stamps the platform share the review certified into the exact transaction', async () => {
    const certified = new BaseLayerLifecycleWorker(
      {
        ...ctx,
        rules: pinnedBaseLaunchRules(
          devnet.deployment,
          loadConfig({ ...env, V3_FEE_CERTIFICATIONS: JSON.stringify([{ adapter: null, profileVersion: '3.3.0' }]) }).v3
            .feeCertifications,
        ),
      },
      { workerId: 'worker-certified', lifecycle: testLifecycle, random: () => 0 },
    );
    const { launchId } = storeBaseLaunch(db, request());
    while (await certified.tick()) {}
    expect(statusOf(launchId)).toBe('authorized');
    const certification = JSON.parse(baseLaunchRow(db, launchId)?.fee_certification_json ?? 'null');
    expect(certification).toMatchObject({ certified: true, platformShareHundredthsBip: 1000, adapter: null });
    await broadcast(boundTransaction(launchId));
    await driveTo(launchId, 'submitted');
    const { poolId } = JSON.parse(baseLaunchRow(db, launchId)?.public_output_json ?? 'null');
    expect(poolId).toBe(certification.stampedPoolKeyHash);
    const share = await reader.readContract({
      address: devnet.deployment.contracts.launchRouter.address,
      abi: baseLaunchRouterAbi,
      functionName: 'platformShareOf',
      args: [poolId],
    });
    expect(share).toBe(1000);
  }, 60_000);

  it('fails a launch whose intent a transaction one calldata byte off the exact one stamped', async () => {
    const { launchId } = storeBaseLaunch(db, request());
    await driveTo(launchId, 'authorized');
    const tx = boundTransaction(launchId);
    const last = Number.parseInt(tx.data.slice(-2), 16);
    const offByOne = `${tx.data.slice(0, -2)}${((last + 1) % 256).toString(16).padStart(2, '0')}`;
    await broadcast({ ...tx, data: offByOne });
    await tracker.tick();
    expect(statusOf(launchId)).toBe('failed');
    expect(JSON.parse(baseLaunchRow(db, launchId)?.failure_json ?? 'null')).toMatchObject({
      code: 'WALLET_TRANSACTION_MISMATCH',
    });
  }, 60_000);

  it('keeps waiting after a launch call of the wallet that differs and did not stamp, then accepts the exact one', async () => {
    const { launchId } = storeBaseLaunch(db, request());
    await driveTo(launchId, 'authorized');
    const tx = boundTransaction(launchId);
    // One wei more than the permit allows: the router reverts, nothing is stamped.
    await broadcast({ ...tx, valueWei: (BigInt(tx.valueWei) + 1n).toString() });
    await tracker.tick();
    expect(statusOf(launchId)).toBe('authorized');
    expect(JSON.parse(baseLaunchRow(db, launchId)?.finding_codes_json ?? '[]')).toContain(
      'WALLET_TRANSACTION_MISMATCH',
    );
    await broadcast(tx);
    await driveTo(launchId, 'submitted');
    expect(JSON.parse(baseLaunchRow(db, launchId)?.chain_evidence_json ?? 'null')).toMatchObject({
      blockHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
  }, 60_000);

  it.each([
    ['one second before validBefore', -1, 'awaiting_funding_authorization'],
    ['at validBefore', 0, 'cancelled'],
  ])(
    'a funding authorization window checked %s',
    async (_name, offsetSeconds, want) => {
      skewMs = 0;
      const { launchId } = storeBaseLaunch(
        db,
        request({
          funding: {
            mode: 'eip3009',
            valueWei: '1000000000000000000',
            token: devnet.deployment.contracts.fundingToken.address,
            amount: '1000000',
            recipient: fundingRecipient.toLowerCase(),
          },
        }),
      );
      await driveTo(launchId, 'awaiting_funding_authorization');
      const validBefore = Number(
        JSON.parse(baseLaunchRow(db, launchId)?.funding_authorization_json ?? 'null').typedData.message.validBefore,
      );
      skewMs = (validBefore + offsetSeconds) * 1000 - Date.now();
      try {
        await tracker.tick();
      } finally {
        skewMs = 0;
      }
      expect(statusOf(launchId)).toBe(want);
      if (want === 'cancelled') {
        expect(JSON.parse(baseLaunchRow(db, launchId)?.failure_json ?? 'null')).toMatchObject({
          code: 'V3_FUNDING_AUTHORIZATION_EXPIRED',
        });
      }
    },
    60_000,
  );

  it('holds a hard-blocked launch in action_required until the operator retires the rule and re-reviews it', async () => {
    const { launchId } = storeBaseLaunch(db, request({ auxiliaries: ['BaseDestructible'] }));
    await driveTo(launchId, 'action_required');
    expect(JSON.parse(baseLaunchRow(db, launchId)?.finding_codes_json ?? '[]')).toContain('RUNTIME_SELFDESTRUCT');
    const adminEnv = { ...env, DATABASE_PATH: join(dir, 'in-process.sqlite') };
    const still = await runAdmin(['v3', 'reevaluate', launchId], adminEnv);
    expect(still.code, still.stderr).toBe(0);
    expect(JSON.parse(still.stdout)).toMatchObject({ launchId, status: 'action_required' });
    const retired = await runAdmin(
      ['v3', 'rules', 'retire', 'RUNTIME_SELFDESTRUCT', '--reason', 'the auxiliary is never called by the pool'],
      adminEnv,
    );
    expect(retired.code, retired.stderr).toBe(0);
    expect(JSON.parse(retired.stdout)).toEqual({ revision: 1, retiredRules: ['RUNTIME_SELFDESTRUCT'] });
    const again = await runAdmin(['v3', 'reevaluate'], adminEnv);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ launchId, status: 'pending_review', ruleSetRevision: 1 });
    await driveTo(launchId, 'authorized');
    expect(baseLaunchTransitions(db, launchId).map((t) => t.to)).toEqual([
      'validating',
      'pending_review',
      'action_required',
      'pending_review',
      'prepared',
      'simulating',
      'authorized',
    ]);
  }, 90_000);

  it('returns a submitted launch to authorized when its block is reorganized away, then accepts the exact one again', async () => {
    const { launchId } = storeBaseLaunch(db, request());
    await driveTo(launchId, 'authorized');
    const tx = boundTransaction(launchId);
    await broadcast(tx);
    await driveTo(launchId, 'submitted');
    const mined = BigInt(JSON.parse(baseLaunchRow(db, launchId)?.chain_evidence_json ?? 'null').blockNumber);
    const head = await reader.getBlockNumber();
    await testClient.request({ method: 'anvil_reorg' as never, params: [Number(head - mined + 1n), []] as never });
    await tracker.tick();
    expect(statusOf(launchId)).toBe('authorized');
    expect(baseLaunchRow(db, launchId)?.chain_evidence_json).toBeNull();
    expect(JSON.parse(baseLaunchRow(db, launchId)?.finding_codes_json ?? '[]')).toContain('CHAIN_REORG_DETECTED');
    await broadcast(tx);
    await driveTo(launchId, 'submitted');
    expect(
      baseLaunchTransitions(db, launchId)
        .map((t) => t.to)
        .slice(-4),
    ).toEqual(['authorized', 'submitted', 'authorized', 'submitted']);
  }, 60_000);

  it('fails a launch whose exact transaction was mined and reverted', async () => {
    const dusd = devnet.deployment.contracts.fundingToken.address;
    const { launchId, principal } = storeBaseLaunch(
      db,
      request({
        funding: {
          mode: 'eip3009',
          valueWei: '1000000000000000000',
          token: dusd,
          amount: '1000000',
          recipient: fundingRecipient.toLowerCase(),
        },
      }),
    );
    await driveTo(launchId, 'awaiting_funding_authorization');
    await signFunding(launchId, principal);
    await driveTo(launchId, 'authorized');
    // The wallet cancels the authorization first: the exact transaction then reverts in the token's pull.
    await cancelFundingNonce(fundingNonceOf(launchId, baseLaunchRow(db, launchId)?.launch_intent_hash as string));
    await broadcast(boundTransaction(launchId));
    await tracker.tick();
    expect(statusOf(launchId)).toBe('failed');
    expect(JSON.parse(baseLaunchRow(db, launchId)?.failure_json ?? 'null')).toMatchObject({
      code: 'WALLET_TRANSACTION_REVERTED',
    });
  }, 60_000);

  it('waits after pending_review without chain 1, retries a chain that does not answer, and goes on once it does', async () => {
    const { launchId } = storeBaseLaunch(db, request());
    const offline = new BaseLayerLifecycleWorker(
      { ...ctx, chain: null },
      { workerId: 'worker-offline', lifecycle: testLifecycle, random: () => 0 },
    );
    while (await offline.tick()) {}
    expect(statusOf(launchId)).toBe('pending_review');
    expect(jobOf(launchId)).toMatchObject({ state: 'idle', last_error_code: 'CHAIN_NOT_CONFIGURED' });
    const unreachable = new BaseLayerLifecycleWorker(
      { ...ctx, chain: new BaseLaunchChain(['http://127.0.0.1:1', 'http://127.0.0.1:1'], devnet.deployment) },
      { workerId: 'worker-unreachable', lifecycle: testLifecycle, random: () => 0 },
    );
    scheduleBaseJob(db, launchId, ctx.now());
    while (await unreachable.tick()) {}
    expect(statusOf(launchId)).toBe('prepared');
    expect(jobOf(launchId)).toMatchObject({
      state: 'retry_wait',
      last_error_code: 'CHAIN_RPC_UNAVAILABLE',
      attempt: 1,
    });
    // The first retry waits the backoff base (testLifecycle: 1 s, no jitter): not due a moment before it.
    expect(await worker.tick()).toBe(false);
    skewMs = testLifecycle.backoffBaseMs;
    try {
      await driveTo(launchId, 'authorized');
    } finally {
      skewMs = 0;
    }
    expect(baseLaunchTransitions(db, launchId).map((t) => t.to)).toEqual([
      'validating',
      'pending_review',
      'prepared',
      'simulating',
      'authorized',
    ]);
  }, 60_000);

  it('fails a launch whose exact transaction reverts in the simulation, with the decoded revert', async () => {
    const primitive = request({ kind: 'router-primitive' });
    // The token's constructor mints the original supply; the pool is asked for twice that.
    const doubled = (BigInt(primitive.liquidity.tokenSupply) * 2n).toString();
    const { launchId } = storeBaseLaunch(
      db,
      sealBaseLayerRequest({ ...primitive, liquidity: { ...primitive.liquidity, tokenSupply: doubled } }),
    );
    await driveTo(launchId, 'failed');
    expect(baseLaunchTransitions(db, launchId).map((t) => t.to)).toEqual([
      'validating',
      'pending_review',
      'prepared',
      'simulating',
      'failed',
    ]);
    const row = baseLaunchRow(db, launchId);
    expect(JSON.parse(row?.failure_json ?? 'null')).toMatchObject({
      code: 'V3_SIMULATION_REVERTED',
      message: expect.stringContaining('TokenSupplyNotDelivered'),
    });
    expect(row?.wallet_transaction_json).toBeNull();
    expect(row?.public_output_json).toBeNull();
  }, 60_000);

  it('cancels a launch whose funding nonce was used on chain without the launch transaction', async () => {
    const dusd = devnet.deployment.contracts.fundingToken.address;
    const { launchId } = storeBaseLaunch(
      db,
      request({
        funding: {
          mode: 'eip3009',
          valueWei: '1000000000000000000',
          token: dusd,
          amount: '1000000',
          recipient: fundingRecipient.toLowerCase(),
        },
      }),
    );
    await driveTo(launchId, 'awaiting_funding_authorization');
    await tracker.tick();
    expect(statusOf(launchId)).toBe('awaiting_funding_authorization');
    const nonceUsed = fundingNonceOf(launchId, baseLaunchRow(db, launchId)?.launch_intent_hash as string);
    await cancelFundingNonce(nonceUsed);
    await tracker.tick();
    expect(statusOf(launchId)).toBe('cancelled');
    expect(JSON.parse(baseLaunchRow(db, launchId)?.failure_json ?? 'null')).toMatchObject({
      code: 'V3_FUNDING_AUTHORIZATION_EXPIRED',
    });
  }, 60_000);
});

describe('the permit attester key of a server bound only to the base layer', () => {
  it.each([
    ['the key alone', { PERMIT_ATTESTER_KEY: devnetPermitAttesterKey }, 'chain gates need'],
    [
      'the key with a base deployment',
      { PERMIT_ATTESTER_KEY: devnetPermitAttesterKey, BASE_DEPLOYMENT_PATH: '/x/base-deployment.json' },
      null,
    ],
    [
      'the key with a base deployment and one chain-4663 URL pair',
      {
        PERMIT_ATTESTER_KEY: devnetPermitAttesterKey,
        BASE_DEPLOYMENT_PATH: '/x/base-deployment.json',
        CHAIN_4663_RPC_URLS: 'http://a.example,http://b.example',
      },
      'chain gates need',
    ],
  ])('%s', (_name, given, want) => {
    const config = loadConfig(given);
    if (want === null) expect(chainGatesConfigFrom(config)).toBeNull();
    else expect(() => chainGatesConfigFrom(config)).toThrow(want);
  });
});

describe('v3 rules retire at the bounds of its arguments (operator processes run side by side)', () => {
  it('refuses a missing or unknown rule code and a reason outside 1 to 1024 characters, and records both bounds', async () => {
    const refusals: Array<[string, string[], string]> = [
      ['no rule code', ['--reason', 'x'], 'at least one RULE_CODE'],
      [
        'a code that is not a hard-block rule',
        ['FEE_CERTIFICATION_NOT_FOUND', '--reason', 'x'],
        'not a hard-block rule',
      ],
      ['no reason', ['RUNTIME_CALLCODE'], '--reason must be 1 to 1024'],
      ['a reason of 1025 characters', ['RUNTIME_CALLCODE', '--reason', 'r'.repeat(1025)], '--reason must be 1 to 1024'],
    ];
    const accepted: Array<[string, string, string]> = [
      ['a reason of 1 character', 'r', 'bound-1.sqlite'],
      ['a reason of 1024 characters', 'r'.repeat(1024), 'bound-1024.sqlite'],
    ];
    const retire = (args: string[], file: string) =>
      runAdmin(['v3', 'rules', 'retire', ...args], { ...env, DATABASE_PATH: join(dir, file) });
    const [refused, recorded] = await Promise.all([
      Promise.all(refusals.map(([name, args]) => retire(args, `refusal-${name.replaceAll(' ', '-')}.sqlite`))),
      Promise.all(accepted.map(([, reason, file]) => retire(['RUNTIME_CALLCODE', '--reason', reason], file))),
    ]);
    refusals.forEach(([name, , want], i) => {
      expect(refused[i]?.code, name).toBe(2);
      expect(refused[i]?.stderr, name).toContain(want);
    });
    accepted.forEach(([name], i) => {
      expect(recorded[i]?.code, `${name}: ${recorded[i]?.stderr}`).toBe(0);
      expect(JSON.parse(recorded[i]?.stdout ?? 'null'), name).toEqual({
        revision: 1,
        retiredRules: ['RUNTIME_CALLCODE'],
      });
    });
  }, 60_000);
});

describe('the funding window of an authorized launch, by chain time (moves the devnet clock on)', () => {
  it.each([
    ['one second before validBefore', -1, 'authorized'],
    ['at validBefore', 0, 'cancelled'],
  ])(
    'a head block %s',
    async (_name, offsetSeconds, want) => {
      // The case before moved the chain's clock on: the service's clock starts at the chain's, so the new window
      // opens at the chain's present however long the steps below take.
      const head = await reader.getBlock({ blockTag: 'latest' });
      skewMs = Math.max(skewMs, Number(head.timestamp) * 1000 + 1000 - Date.now());
      const { launchId, principal } = storeBaseLaunch(
        db,
        request({
          funding: {
            mode: 'eip3009',
            valueWei: '1000000000000000000',
            token: devnet.deployment.contracts.fundingToken.address,
            amount: '1000000',
            recipient: fundingRecipient.toLowerCase(),
          },
        }),
      );
      await driveTo(launchId, 'awaiting_funding_authorization');
      await signFunding(launchId, principal);
      await driveTo(launchId, 'authorized');
      const validBefore = BigInt(
        JSON.parse(baseLaunchRow(db, launchId)?.funding_authorization_json ?? 'null').typedData.message.validBefore,
      );
      await testClient.setNextBlockTimestamp({ timestamp: validBefore + BigInt(offsetSeconds) });
      await testClient.mine({ blocks: 1 });
      await tracker.tick();
      expect(statusOf(launchId)).toBe(want);
      if (want === 'cancelled') {
        expect(JSON.parse(baseLaunchRow(db, launchId)?.failure_json ?? 'null')).toMatchObject({
          code: 'V3_FUNDING_AUTHORIZATION_EXPIRED',
        });
      }
    },
    60_000,
  );
});

describe('the permit of an authorized launch (moves the devnet clock an hour on: last in process)', () => {
  it.each([
    ['at its expiry', 0, 'authorized'],
    ['one second after its expiry', 1, 'failed'],
  ])(
    'a head block %s',
    async (_name, offsetSeconds, want) => {
      const { launchId } = storeBaseLaunch(db, request());
      await driveTo(launchId, 'authorized');
      await tracker.tick();
      const permit = basePermitOfCalldata(boundTransaction(launchId).data as Hex);
      await testClient.setNextBlockTimestamp({ timestamp: (permit?.expiresAt ?? 0n) + BigInt(offsetSeconds) });
      await testClient.mine({ blocks: 1 });
      await tracker.tick();
      expect(statusOf(launchId)).toBe(want);
      if (want === 'failed') {
        expect(JSON.parse(baseLaunchRow(db, launchId)?.failure_json ?? 'null')).toMatchObject({
          code: 'LAUNCH_PERMIT_EXPIRED',
        });
      }
    },
    60_000,
  );
});

describe('a server process on the base-layer devnet (real HTTP)', () => {
  it('resumes an eip3009 launch after a kill mid-step without a repeated transition, takes its signature over HTTP, finalizes it and serves the feed', async () => {
    const path = join(dir, 'server.sqlite');
    const setup = openDatabase(path);
    const { apiKey } = mintWalletKey(setup, {
      wallet: account0.address,
      scopes: ['custom-launch:create', 'custom-launch:read'],
      chains: ['1'],
    });
    setup.close();
    const serverEnv = {
      ...env,
      DATABASE_PATH: path,
      LIFECYCLE_LEASE_MS: '1500',
      LIFECYCLE_POLL_MS: '50',
      LIFECYCLE_TRACKER_POLL_MS: '200',
      // The devnet clock runs hours ahead after the tests above: a window of a day keeps the authorization valid.
      V3_FUNDING_AUTHORIZATION_WINDOW_SECONDS: '86400',
    };
    const statusOf = async (url: string, launchId: string) =>
      (await call(`${url}/v3/custom-launches/${launchId}`, { headers: auth(apiKey) })).json;
    const until = async (url: string, launchId: string, want: string) => {
      const started = Date.now();
      for (;;) {
        const resource = await statusOf(url, launchId);
        if (resource?.status === want) return resource;
        if (Date.now() - started > 30_000) throw new Error(`still ${JSON.stringify(resource)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };

    // The first process claims the job and sits in a long step: it is killed there.
    const first = await startServerProcess({ ...serverEnv, LIFECYCLE_STEP_DELAY_MS: '60000' });
    let launchId = '';
    try {
      const created = await call(`${first.url}/v3/custom-launches`, {
        method: 'POST',
        headers: auth(apiKey, { 'Idempotency-Key': 'base-lifecycle-kill-0001' }),
        body: JSON.stringify(
          request({
            funding: {
              mode: 'eip3009',
              valueWei: '1000000000000000000',
              token: devnet.deployment.contracts.fundingToken.address,
              amount: '2000000',
              recipient: fundingRecipient.toLowerCase(),
            },
          }),
        ),
      });
      expect(created.status, created.text).toBe(202);
      launchId = created.json.launchId;
      await until(first.url, launchId, 'validating');
    } finally {
      await first.kill();
    }
    const second = await startServerProcess(serverEnv);
    try {
      const awaiting = await until(second.url, launchId, 'awaiting_funding_authorization');
      expect(awaiting.walletTransaction).toBeNull();
      const signed = await call(`${second.url}/v3/custom-launches/${launchId}/funding-authorization`, {
        method: 'POST',
        headers: auth(apiKey),
        body: JSON.stringify({
          schemaVersion: 'platform.custom-launch-funding-authorization.v3',
          signature: await signTypedDataOf(awaiting.fundingAuthorization.typedData),
        }),
      });
      expect(signed.status, signed.text).toBe(200);
      const authorized = await until(second.url, launchId, 'authorized');
      expect(authorized.walletTransaction).toMatchObject({ chainId: '1', from: account0.address.toLowerCase() });
      await broadcast(authorized.walletTransaction);
      await until(second.url, launchId, 'submitted');
      await testClient.mine({ blocks: 65 });
      const finalized = await until(second.url, launchId, 'finalized');
      expect(finalized.publicOutput).toEqual({
        tokenAddress: expect.stringMatching(/^0x[0-9a-f]{40}$/),
        hookAddress: expect.stringMatching(/^0x[0-9a-f]{40}$/),
        poolId: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      });
      const feed = await call(`${second.url}/v3/finalized-custom-launches`);
      expect(feed.status, feed.text).toBe(200);
      expect(feed.json.quality).toMatchObject({ status: 'complete', publishedRowCount: 1, quarantinedRowCount: 0 });
      expect(feed.json.launches[0]).toMatchObject({
        launchId,
        launchProfileVersion: '3.3.0',
        chainId: '1',
        tokenAddress: finalized.publicOutput.tokenAddress,
        transactionHash: finalized.chainEvidence.transactionHash,
      });

      const store = openDatabase(path);
      try {
        expect(baseLaunchTransitions(store, launchId).map((t) => `${t.from}>${t.to}`)).toEqual([
          'received>validating',
          'validating>pending_review',
          'pending_review>awaiting_funding_authorization',
          'awaiting_funding_authorization>funding_authorization_verified',
          'funding_authorization_verified>prepared',
          'prepared>simulating',
          'simulating>authorized',
          'authorized>submitted',
          'submitted>finalized',
        ]);
        // A stored row that is no longer a valid item is withheld and named, never published.
        store.prepare('UPDATE v3_finalized_feed SET item_json = ? WHERE launch_id = ?').run('{"launchId":1}', launchId);
      } finally {
        store.close();
      }
      const partial = await call(`${second.url}/v3/finalized-custom-launches`);
      expect(partial.json.launches).toEqual([]);
      expect(partial.json.quality).toMatchObject({
        status: 'partial',
        sourceRowCount: 1,
        publishedRowCount: 0,
        quarantinedRowCount: 1,
        diagnostics: [{ rowIndex: 0, code: 'FINALIZED_ROW_QUARANTINED' }],
      });
    } finally {
      await second.stop();
    }
  }, 90_000);
});
