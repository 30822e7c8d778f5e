import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createTestClient, http } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MultiRoleCustomLaunchResourceV2 } from '../../generated/types/service.ts';
import { mintWalletKey } from '../../src/auth/keys.ts';
import { chain4663 } from '../../src/chain/chain.ts';
import { devnetServerEnv } from '../../src/devnet/devnet.ts';
import { multiRoleLaunchTransitions } from '../../src/domain/multi-role/launch-store.ts';
import { openDatabase } from '../../src/store/db.ts';
import { type DevnetServer, devnetWallet, startDevnetServer } from '../support/devnet-server.ts';
import { auth, call } from '../support/http.ts';
import { broadcastFrom0 } from '../support/multi-role-devnet.ts';
import { packTidewater } from '../support/multi-role-launch.ts';
import { startServerProcess } from '../support/process.ts';

let env: DevnetServer;
let testClient: ReturnType<typeof createTestClient>;

beforeAll(async () => {
  env = await startDevnetServer('multi-role-e2e', { LIFECYCLE_TRACKER_POLL_MS: '100' });
  const rpc = env.devnet.deployment.rpcUrl;
  testClient = createTestClient({ chain: chain4663(rpc), mode: 'anvil', transport: http(rpc) });
}, 120_000);

afterAll(async () => {
  await env?.stop();
});

const lane = (origin = env.server.url) => `${origin}/v4/chains/4663/multi-role-custom-launches`;
const rpc = () => env.devnet.deployment.rpcUrl;

/** Packs a fresh launch of the example for the devnet's lane and creates it over HTTP (202). */
async function create(origin = env.server.url, key = env.key): Promise<string> {
  const packed = await packTidewater(env.devnet.multiRoleDeployment, devnetWallet);
  const created = await call(lane(origin), {
    method: 'POST',
    headers: auth(key, { 'Idempotency-Key': `multi-role-e2e-${randomUUID()}` }),
    body: packed.bytes,
  });
  expect(created.status, created.text).toBe(202);
  expect(created.json).toMatchObject({ status: 'received', launchWallet: devnetWallet });
  return created.json.launchId;
}

/** Polls the launch over HTTP until it has `want` (30 s at most). */
async function until(
  launchId: string,
  want: string,
  origin = env.server.url,
  key = env.key,
): Promise<MultiRoleCustomLaunchResourceV2> {
  const started = Date.now();
  for (;;) {
    const got = await call(`${lane(origin)}/${launchId}`, { headers: auth(key) });
    expect(got.status, got.text).toBe(200);
    if (got.json.status === want) return got.json;
    if (Date.now() - started > 30_000) throw new Error(`still ${got.text}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A fresh launch over HTTP, authorized; its exact wallet transaction. */
async function authorized() {
  const launchId = await create();
  const resource = await until(launchId, 'authorized');
  const tx = resource.walletTransaction;
  if (!tx) throw new Error('authorized without a wallet transaction');
  return { launchId, resource, tx };
}

describe('a server process on the chain-4663 devnet runs the shared lane end to end (real HTTP)', () => {
  it('creates the packed example, binds the exact transaction, follows the broadcast to finalized and the lane feed only', async () => {
    const { launchId, resource, tx } = await authorized();
    expect(tx).toMatchObject({
      chainId: '4663',
      from: devnetWallet,
      to: env.devnet.multiRoleDeployment.contracts.launchRouter.address.toLowerCase(),
    });
    expect(Date.parse(resource.permitExpiresAt ?? '')).toBeGreaterThan(Date.now());
    const hash = await broadcastFrom0(rpc(), tx);
    const submitted = await until(launchId, 'submitted');
    expect(submitted.chainEvidence).toMatchObject({ transactionHash: hash });
    expect(submitted.publicOutput).toEqual({
      tokenHookAddress: expect.stringMatching(/^0x[0-9a-f]{40}$/),
      poolId: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    await testClient.mine({ blocks: 65 });
    const finalized = await until(launchId, 'finalized');
    expect(finalized.walletTransaction).toEqual(tx);
    const feed = await call(`${lane()}/finalized`);
    expect(feed.status, feed.text).toBe(200);
    expect(feed.json.launches).toContainEqual({
      launchId,
      chainId: '4663',
      launchWallet: devnetWallet,
      tokenHookAddress: submitted.publicOutput?.tokenHookAddress,
      poolId: submitted.publicOutput?.poolId,
      transactionHash: hash,
      blockNumber: submitted.chainEvidence?.blockNumber,
      finalizedAt: expect.any(String),
    });
    const v4 = await call(`${env.server.url}/v4/chains/4663/finalized-custom-launches`);
    expect(v4.status, v4.text).toBe(200);
    expect(JSON.stringify(v4.json)).not.toContain(launchId);
  }, 120_000);

  it('fails a launch whose intent a different transaction stamped', async () => {
    const { launchId, tx } = await authorized();
    const last = Number.parseInt(tx.data.slice(-2), 16);
    await broadcastFrom0(rpc(), {
      ...tx,
      data: `${tx.data.slice(0, -2)}${((last + 1) % 256).toString(16).padStart(2, '0')}`,
    });
    const failed = await until(launchId, 'failed');
    expect(failed.failure).toMatchObject({ code: 'WALLET_TRANSACTION_MISMATCH' });
  }, 120_000);

  it('fails a launch whose exact transaction reverted', async () => {
    const { launchId, tx } = await authorized();
    await broadcastFrom0(rpc(), tx, 300_000n);
    const failed = await until(launchId, 'failed');
    expect(failed.failure).toMatchObject({ code: 'WALLET_TRANSACTION_REVERTED' });
  }, 120_000);

  it('moves a submitted launch back to authorized when its block is reverted away', async () => {
    const { launchId, tx } = await authorized();
    const snapshot = await testClient.snapshot();
    await broadcastFrom0(rpc(), tx);
    await until(launchId, 'submitted');
    await testClient.revert({ id: snapshot });
    await testClient.mine({ blocks: 2 });
    const back = await until(launchId, 'authorized');
    expect(back).toMatchObject({ chainEvidence: null, publicOutput: null, walletTransaction: tx });
    expect(back.findingCodes).toContain('CHAIN_REORG_DETECTED');
  }, 120_000);

  it('resumes a launch after its server is killed mid-step, in authorized and in submitted, without a repeated move', async () => {
    const path = join(env.dir, 'killed.sqlite');
    const setup = openDatabase(path);
    const { apiKey } = mintWalletKey(setup, {
      wallet: devnetWallet,
      scopes: ['custom-launch:create', 'custom-launch:read'],
      chains: ['4663'],
    });
    setup.close();
    const serverEnv = {
      ...devnetServerEnv(env.devnet.deployment, env.dir),
      DATABASE_PATH: path,
      LIFECYCLE_LEASE_MS: '1500',
      LIFECYCLE_POLL_MS: '50',
      LIFECYCLE_TRACKER_POLL_MS: '100',
    };
    // The first process claims the job and sits in a long step: it is killed there.
    const first = await startServerProcess({ ...serverEnv, LIFECYCLE_STEP_DELAY_MS: '60000' });
    let launchId = '';
    try {
      launchId = await create(first.url, apiKey);
      await until(launchId, 'validating', first.url, apiKey);
    } finally {
      await first.kill();
    }
    const second = await startServerProcess(serverEnv);
    let tx: MultiRoleCustomLaunchResourceV2['walletTransaction'] = null;
    try {
      tx = (await until(launchId, 'authorized', second.url, apiKey)).walletTransaction;
    } finally {
      await second.kill();
    }
    await broadcastFrom0(rpc(), tx as NonNullable<typeof tx>);
    const third = await startServerProcess(serverEnv);
    try {
      await until(launchId, 'submitted', third.url, apiKey);
    } finally {
      await third.kill();
    }
    await testClient.mine({ blocks: 65 });
    const fourth = await startServerProcess(serverEnv);
    try {
      await until(launchId, 'finalized', fourth.url, apiKey);
    } finally {
      await fourth.stop();
    }
    const store = openDatabase(path);
    try {
      expect(multiRoleLaunchTransitions(store, launchId).map((t) => `${t.from}>${t.to}`)).toEqual([
        'received>validating',
        'validating>simulating',
        'simulating>authorized',
        'authorized>submitted',
        'submitted>finalized',
      ]);
    } finally {
      store.close();
    }
  }, 120_000);

  it('fails a launch whose permit expired before its exact transaction was mined (moves the devnet clock: last)', async () => {
    const { launchId, resource } = await authorized();
    const head = await testClient.request({ method: 'eth_getBlockByNumber', params: ['latest', false] } as never);
    const headSeconds = Number((head as { timestamp: string }).timestamp);
    const expiresSeconds = Date.parse(resource.permitExpiresAt ?? '') / 1000;
    await testClient.increaseTime({ seconds: expiresSeconds - headSeconds + 1 });
    await testClient.mine({ blocks: 1 });
    const failed = await until(launchId, 'failed');
    expect(failed.failure).toMatchObject({ code: 'LAUNCH_PERMIT_EXPIRED' });
  }, 120_000);
});
