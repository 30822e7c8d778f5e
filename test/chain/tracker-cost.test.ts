import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, createTestClient, createWalletClient, encodeFunctionData, type Hex, http } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchStampRouterAbi } from '../../generated/contracts/abis.ts';
import type { CustomLaunchCreateRequestV4 } from '../../generated/types/service.ts';
import { mintWalletKey, type Principal } from '../../src/auth/keys.ts';
import { chain4663 } from '../../src/chain/chain.ts';
import { viemLaunchObserver } from '../../src/chain/launch-observer.ts';
import { startDevnet } from '../../src/devnet/devnet.ts';
import { LaunchService } from '../../src/domain/launches/launch-service.ts';
import { LaunchTracker, trackedStatuses } from '../../src/domain/lifecycle/tracker.ts';
import { type Db, openDatabase } from '../../src/store/db.ts';
import { type RpcProxy, startRpcProxy } from '../support/rpc-proxy.ts';
import { exampleWallet, freshV4Bytes } from '../support/server.ts';

/*
 * The post-authorization tracker's chain reads of one poll grow with the new blocks and the launches those blocks
 * name, never with the number of launches awaiting their wallets: hundreds of handed-off launches on the devnet, k new
 * blocks of which one carries wallet transactions naming a few of them, and the JSON-RPC requests of ONE tick counted
 * by method at both provider positions.
 */

/** Anvil's second account (unlocked): the launch wallet here, so the devnet's own price publisher never shares a nonce. */
const wallet = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' as Hex;
const newBlocks = 6;

let dir: string;
let devnet: Awaited<ReturnType<typeof startDevnet>>;
let a: RpcProxy;
let b: RpcProxy;
let db: Db;
let principal: Principal;
let service: LaunchService;
let tracker: LaunchTracker;
let router: Hex;
let reader: ReturnType<typeof createPublicClient>;
let testClient: ReturnType<typeof createTestClient>;
let walletClient: ReturnType<typeof createWalletClient>;
/** The exact calldata bound to each launch created here, by launch id. */
const exactData = new Map<string, Hex>();
let created = 0;

/** A router `launch` call naming `intent`; `variant` changes the permit's signature, so the bytes differ. */
const launchCall = (intent: Hex, variant = 0): Hex =>
  encodeFunctionData({
    abi: launchStampRouterAbi,
    functionName: 'launch',
    args: [
      {
        launchIntentHash: intent,
        lpFee: 3000,
        tickSpacing: 60,
        sqrtPriceX96: 2n ** 96n,
        tokenSupply: 10n ** 24n,
        liquidityNative: 0n,
        initialBuyNative: 0n,
        minTokenOut: 0n,
        hookMask: 0,
        tokenIndex: 0,
        hookIndex: 1,
        initializerIndex: 2,
      },
      [],
      {
        launchIntentHash: intent,
        wallet,
        value: 0n,
        checkpointBlockNumber: 1n,
        checkpointBlockHash: `0x${'00'.repeat(32)}`,
        issuedAt: 1n,
        expiresAt: 4_000_000_000n,
      },
      `0x${(variant + 1).toString(16).padStart(2, '0').repeat(65)}`,
    ],
  });

/**
 * Stores `count` more V4 launches (createCustomLaunchV4 through the launch service, as the HTTP route does) and hands
 * each off to the wallet with its own exact router call, as the worker's chain gates bind it.
 */
function storeAwaiting(count: number): void {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const rawBody = Buffer.from(freshV4Bytes());
    const request = JSON.parse(rawBody.toString('utf8')) as CustomLaunchCreateRequestV4;
    const r = service.create({ principal, idempotencyKey: `tracker-cost-${++created}`, request, rawBody });
    expect(r.status, r.body).toBe(202);
    ids.push((JSON.parse(r.body) as { launchId: string }).launchId);
  }
  const intentOf = db.prepare('SELECT launch_intent_hash FROM launches WHERE launch_id = ?');
  const handOff = db.prepare(
    "UPDATE launches SET status = 'awaiting_wallet_signature', wallet_transaction_json = ? WHERE launch_id = ?",
  );
  const idle = db.prepare("UPDATE lifecycle_jobs SET state = 'idle', next_attempt_ms = NULL WHERE launch_id = ?");
  db.transaction(() => {
    for (const id of ids) {
      const { launch_intent_hash } = intentOf.get(id) as { launch_intent_hash: string };
      const data = launchCall(`0x${launch_intent_hash.slice('sha256:'.length)}`);
      exactData.set(id, data);
      const walletTransaction = {
        chainId: '4663',
        from: wallet,
        to: router,
        valueWei: '0',
        data,
        gasLimit: '1000000',
        permitExpiresAt: '2096-01-01T00:00:00.000Z',
        simulationDigest: `sha256:${'ab'.repeat(32)}`,
      };
      handOff.run(JSON.stringify(walletTransaction), id);
      idle.run(id);
    }
  })();
}

const awaitingIds = () =>
  (
    db
      .prepare("SELECT launch_id FROM launches WHERE status = 'awaiting_wallet_signature' ORDER BY seq")
      .all() as Array<{ launch_id: string }>
  ).map((r) => r.launch_id);

const send = (data: Hex) =>
  walletClient.sendTransaction({ account: wallet, chain: null, to: router, data, gas: 1_000_000n });

/**
 * One measured poll over `total` awaiting launches: every cursor at the head, then `newBlocks` blocks of which the
 * first carries a differing launch call naming one launch and the exact (reverting) bytes of another, then ONE tick.
 * Answers the requests of that tick by method, both providers together, and the two touched launches.
 */
async function measuredPoll(total: number) {
  const missing = total - awaitingIds().length;
  if (missing > 0) storeAwaiting(missing);
  const ids = awaitingIds();
  expect(ids.length).toBe(total);
  const head = await reader.getBlockNumber({ cacheTime: 0 });
  db.prepare(
    `UPDATE launches SET tracked_to_block = ? WHERE status IN (${trackedStatuses.map(() => '?').join(', ')})`,
  ).run(Number(head), ...trackedStatuses);
  const [mismatched, reverted] = [ids[ids.length - 1] as string, ids[ids.length - 2] as string];
  const hashes = [await send(launchCall(intentOfData(mismatched), 1)), await send(exactData.get(reverted) as Hex)];
  // Automining is off: these blocks are the only new ones (a price publish waits for one of them).
  await testClient.mine({ blocks: newBlocks });
  for (const hash of hashes) {
    expect((await reader.getTransactionReceipt({ hash })).blockNumber).toBe(head + 1n);
  }
  expect(await reader.getBlockNumber({ cacheTime: 0 })).toBe(head + BigInt(newBlocks));
  a.resetCounts();
  b.resetCounts();
  await tracker.tick();
  const calls: Record<string, number> = {};
  for (const proxy of [a, b]) {
    for (const [method, n] of Object.entries(proxy.counts())) calls[method] = (calls[method] ?? 0) + n;
  }
  return { calls, total: Object.values(calls).reduce((x, y) => x + y, 0), mismatched, reverted };
}

/** The intent a launch created here binds, as its calldata names it. */
const intentOfData = (launchId: string): Hex => {
  const { launch_intent_hash } = db
    .prepare('SELECT launch_intent_hash FROM launches WHERE launch_id = ?')
    .get(launchId) as { launch_intent_hash: string };
  return `0x${launch_intent_hash.slice('sha256:'.length)}`;
};

const launchRow = (launchId: string) =>
  db.prepare('SELECT status, findings_json, failure_json FROM launches WHERE launch_id = ?').get(launchId) as {
    status: string;
    findings_json: string;
    failure_json: string | null;
  };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'custom-launch-tracker-cost-'));
  devnet = await startDevnet({ outputDir: dir });
  [a, b] = await Promise.all([startRpcProxy(devnet.deployment.rpcUrl), startRpcProxy(devnet.deployment.rpcUrl)]);
  const chain = chain4663(devnet.deployment.rpcUrl);
  reader = createPublicClient({ chain, transport: http(devnet.deployment.rpcUrl) });
  testClient = createTestClient({ mode: 'anvil', chain, transport: http(devnet.deployment.rpcUrl) });
  walletClient = createWalletClient({ chain, transport: http(devnet.deployment.rpcUrl) });
  await testClient.setAutomine(false);
  router = devnet.deployment.contracts.platformLaunchStampRouter.address as Hex;
  db = openDatabase(join(dir, 'api.sqlite'));
  ({ principal } = mintWalletKey(db, {
    wallet: exampleWallet,
    scopes: ['custom-launch:create', 'custom-launch:read'],
    chains: ['4663'],
  }));
  service = new LaunchService(
    db,
    { admissionPerHour: 1_000_000, admissionPerDay: 1_000_000, lifecycleValidationDeadlineMs: 600_000 },
    Date.now,
  );
  tracker = new LaunchTracker({
    db,
    observer: viemLaunchObserver([a.url, b.url]),
    finalityPolicy: devnet.chainDeployment.finality,
    graphFactory: devnet.chainDeployment.contracts.graphFactory.address as Hex,
    now: Date.now,
    workerId: 'tracker-cost-test',
    pollMs: 100,
    permitReissueDecisionWindowMs: 600_000,
  });
}, 120_000);

afterAll(async () => {
  db?.close();
  await Promise.all([a?.close(), b?.close()]);
  await devnet?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the RPC cost of one tracker poll', () => {
  it('is bounded by the new blocks and the launches they name, the same with 100 and with 400 awaiting launches', async () => {
    const polls = [];
    for (const total of [100, 400]) {
      const poll = await measuredPoll(total);
      // Both kinds of touch are still decided as before: a differing call is a mismatch, the exact bytes reverted.
      const mismatched = launchRow(poll.mismatched);
      expect(mismatched.status).toBe('wallet_action_required');
      expect(mismatched.findings_json).toContain('WALLET_TRANSACTION_MISMATCH');
      const reverted = launchRow(poll.reverted);
      expect(reverted.status).toBe('failed');
      expect(reverted.failure_json).toContain('WALLET_TRANSACTION_REVERTED');
      polls.push(poll);
    }
    if (process.env.TRACKER_COST_PRINT) console.log(JSON.stringify(polls.map((p) => p.calls)));
    const touched = 2;
    // c0: both heads and both checkpoints; c1: one block read; c2: a transaction on both providers and a receipt on both.
    const bound = 8 + newBlocks + 4 * touched;
    for (const poll of polls) {
      expect(poll.total, JSON.stringify(poll.calls)).toBeLessThanOrEqual(bound);
      expect(poll.calls.eth_getLogs, JSON.stringify(poll.calls)).toBe(1);
    }
    const [small, large] = polls as [(typeof polls)[0], (typeof polls)[0]];
    expect(large.calls).toEqual(small.calls);
    // The untouched launches moved their search on to the head all the same.
    const behind = db
      .prepare(
        "SELECT COUNT(*) AS n FROM launches WHERE status = 'awaiting_wallet_signature' AND tracked_to_block IS NOT ?",
      )
      .get(Number(await reader.getBlockNumber({ cacheTime: 0 }))) as { n: number };
    expect(behind.n).toBe(0);
  }, 60_000);
});
