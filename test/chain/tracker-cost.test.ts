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
import { encodeMultiRoleRouterLaunch, MultiRoleLaunchChain } from '../../src/chain/multi-role-launch-chain.ts';
import { startDevnet } from '../../src/devnet/devnet.ts';
import { LaunchService } from '../../src/domain/launches/launch-service.ts';
import { LaunchTracker, trackedStatuses } from '../../src/domain/lifecycle/tracker.ts';
import { MultiRoleTracker, trackedMultiRoleStatuses } from '../../src/domain/multi-role/tracker.ts';
import { type Db, openDatabase } from '../../src/store/db.ts';
import { createMultiRoleLaunch } from '../support/multi-role-launch.ts';
import { multiRoleRequest, multiRoleRequestBytes } from '../support/multi-role-request.ts';
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
let v4: MeasuredLane;
let shared: MeasuredLane;
let reader: ReturnType<typeof createPublicClient>;
let testClient: ReturnType<typeof createTestClient>;
let walletClient: ReturnType<typeof createWalletClient>;
/** The exact calldata bound to each launch created here, by launch id. */
const exactData = new Map<string, Hex>();
let created = 0;

/** A permit naming `intent` for the launch wallet (never valid: the router reverts every call carrying it). */
const permitNaming = (intent: Hex) => ({
  launchIntentHash: intent,
  wallet,
  value: 0n,
  checkpointBlockNumber: 1n,
  checkpointBlockHash: `0x${'00'.repeat(32)}` as Hex,
  issuedAt: 1n,
  expiresAt: 4_000_000_000n,
});
/** A permit signature; another `variant` gives other calldata bytes. */
const signature = (variant: number): Hex => `0x${(variant + 1).toString(16).padStart(2, '0').repeat(65)}`;
const pool = { lpFee: 3000, tickSpacing: 60, sqrtPriceX96: 2n ** 96n, tokenSupply: 10n ** 24n, liquidityNative: 0n };

/** A V4 router `launch` call naming `intent`. */
const v4Call = (intent: Hex, variant = 0): Hex =>
  encodeFunctionData({
    abi: launchStampRouterAbi,
    functionName: 'launch',
    args: [
      {
        launchIntentHash: intent,
        ...pool,
        initialBuyNative: 0n,
        minTokenOut: 0n,
        hookMask: 0,
        tokenIndex: 0,
        hookIndex: 1,
        initializerIndex: 2,
      },
      [],
      permitNaming(intent),
      signature(variant),
    ],
  });

/** A shared-lane router `launch` call naming `intent`. */
const multiRoleCall = (intent: Hex, variant = 0): Hex =>
  encodeMultiRoleRouterLaunch(
    { launchIntentHash: intent, ...pool, hookMask: 0, tokenHookIndex: 0, initializerIndex: 1 },
    [],
    permitNaming(intent),
    signature(variant),
  );

/** A lane whose tracker is measured: its launch table, its router, how launches are stored and ticked. */
interface MeasuredLane {
  table: 'launches' | 'multi_role_launches';
  /** The status of a launch awaiting its wallet; `tracked` every status the tracker follows. */
  awaiting: string;
  tracked: readonly string[];
  router: Hex;
  /** Stores `count` more launches awaiting the wallet, each bound to its own exact router call. */
  store(count: number): void | Promise<void>;
  /** A router `launch` call naming `intent`; `variant` changes the permit's signature, so the bytes differ. */
  call(intent: Hex, variant?: number): Hex;
  tick(): Promise<unknown>;
}

/** The exact wallet transaction of a launch stored here: `data` from the launch wallet to `to`, no value. */
const boundTransaction = (to: Hex, data: Hex) => ({
  chainId: '4663',
  from: wallet,
  to,
  valueWei: '0',
  data,
  gasLimit: '1000000',
  permitExpiresAt: '2096-01-01T00:00:00.000Z',
  simulationDigest: `sha256:${'ab'.repeat(32)}`,
});

/** Binds each stored launch (by id) to its own exact router call, in `status`, in one transaction. */
function handOff(lane: MeasuredLane, ids: readonly string[], status: string): void {
  const handOffRow = db.prepare(`UPDATE ${lane.table} SET status = ?, wallet_transaction_json = ? WHERE launch_id = ?`);
  db.transaction(() => {
    for (const id of ids) {
      const data = lane.call(intentOf(lane, id));
      exactData.set(id, data);
      handOffRow.run(status, JSON.stringify(boundTransaction(lane.router, data)), id);
    }
  })();
}

/**
 * Stores `count` more V4 launches (createCustomLaunchV4 through the launch service, as the HTTP route does) and hands
 * each off to the wallet with its own exact router call, as the worker's chain gates bind it.
 */
async function storeV4(lane: MeasuredLane, count: number): Promise<void> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const rawBody = Buffer.from(freshV4Bytes());
    const request = JSON.parse(rawBody.toString('utf8')) as CustomLaunchCreateRequestV4;
    const r = await service.create({ principal, idempotencyKey: `tracker-cost-${++created}`, request, rawBody });
    expect(r.status, r.body).toBe(202);
    ids.push((JSON.parse(r.body) as { launchId: string }).launchId);
  }
  handOff(lane, ids, 'awaiting_wallet_signature');
  const idle = db.prepare("UPDATE lifecycle_jobs SET state = 'idle', next_attempt_ms = NULL WHERE launch_id = ?");
  db.transaction(() => {
    for (const id of ids) idle.run(id);
  })();
}

/** Stores `count` more shared-lane launches (createMultiRoleCustomLaunch's store) and hands each off at authorized. */
function storeMultiRole(lane: MeasuredLane, count: number): void {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const request = multiRoleRequest((r) => {
      r.launchWallet = wallet;
    });
    ids.push(createMultiRoleLaunch(db, { request, bytes: multiRoleRequestBytes(request) }).launchId);
  }
  handOff(lane, ids, 'authorized');
}

const awaitingIds = (lane: MeasuredLane) =>
  (
    db.prepare(`SELECT launch_id FROM ${lane.table} WHERE status = ? ORDER BY seq`).all(lane.awaiting) as Array<{
      launch_id: string;
    }>
  ).map((r) => r.launch_id);

const send = (to: Hex, data: Hex) =>
  walletClient.sendTransaction({ account: wallet, chain: null, to, data, gas: 1_000_000n });

/**
 * One measured poll over `total` awaiting launches: every cursor at the head, then `newBlocks` blocks of which the
 * first carries a differing launch call naming one launch and the exact (reverting) bytes of another, then ONE tick.
 * Answers the requests of that tick by method, both providers together, and the two touched launches.
 */
async function measuredPoll(lane: MeasuredLane, total: number) {
  const missing = total - awaitingIds(lane).length;
  if (missing > 0) await lane.store(missing);
  const ids = awaitingIds(lane);
  expect(ids.length).toBe(total);
  const head = await reader.getBlockNumber({ cacheTime: 0 });
  db.prepare(
    `UPDATE ${lane.table} SET tracked_to_block = ? WHERE status IN (${lane.tracked.map(() => '?').join(', ')})`,
  ).run(Number(head), ...lane.tracked);
  const [mismatched, reverted] = [ids[ids.length - 1] as string, ids[ids.length - 2] as string];
  const hashes = [
    await send(lane.router, lane.call(intentOf(lane, mismatched), 1)),
    await send(lane.router, exactData.get(reverted) as Hex),
  ];
  // Automining is off: these blocks are the only new ones (a price publish waits for one of them).
  await testClient.mine({ blocks: newBlocks });
  for (const hash of hashes) {
    expect((await reader.getTransactionReceipt({ hash })).blockNumber).toBe(head + 1n);
  }
  expect(await reader.getBlockNumber({ cacheTime: 0 })).toBe(head + BigInt(newBlocks));
  a.resetCounts();
  b.resetCounts();
  await lane.tick();
  const calls: Record<string, number> = {};
  for (const proxy of [a, b]) {
    for (const [method, n] of Object.entries(proxy.counts())) calls[method] = (calls[method] ?? 0) + n;
  }
  return { calls, total: Object.values(calls).reduce((x, y) => x + y, 0), mismatched, reverted };
}

/** The intent a launch stored here binds, as its calldata names it. */
const intentOf = (lane: MeasuredLane, launchId: string): Hex => {
  const { launch_intent_hash } = db
    .prepare(`SELECT launch_intent_hash FROM ${lane.table} WHERE launch_id = ?`)
    .get(launchId) as { launch_intent_hash: string };
  return `0x${launch_intent_hash.replace(/^sha256:/, '')}`;
};

const launchRow = (lane: MeasuredLane, launchId: string) =>
  db.prepare(`SELECT * FROM ${lane.table} WHERE launch_id = ?`).get(launchId) as {
    status: string;
    findings_json?: string;
    finding_codes_json?: string;
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
  const tracker = new LaunchTracker({
    db,
    observer: viemLaunchObserver([a.url, b.url]),
    finalityPolicy: devnet.chainDeployment.finality,
    graphFactory: devnet.chainDeployment.contracts.graphFactory.address as Hex,
    now: Date.now,
    workerId: 'tracker-cost-test',
    pollMs: 100,
    permitReissueDecisionWindowMs: 600_000,
  });
  v4 = {
    table: 'launches',
    awaiting: 'awaiting_wallet_signature',
    tracked: trackedStatuses,
    router: devnet.deployment.contracts.platformLaunchStampRouter.address as Hex,
    store: (count) => storeV4(v4, count),
    call: v4Call,
    tick: () => tracker.tick(),
  };
  const sharedTracker = new MultiRoleTracker({
    db,
    chain: new MultiRoleLaunchChain([a.url, b.url], devnet.multiRoleDeployment),
    now: Date.now,
    workerId: 'tracker-cost-test',
    maxBlocksPerPoll: 500,
  });
  shared = {
    table: 'multi_role_launches',
    awaiting: 'authorized',
    tracked: trackedMultiRoleStatuses,
    router: devnet.multiRoleDeployment.contracts.launchRouter.address as Hex,
    store: (count) => storeMultiRole(shared, count),
    call: multiRoleCall,
    tick: () => sharedTracker.tick(),
  };
}, 120_000);

afterAll(async () => {
  db?.close();
  await Promise.all([a?.close(), b?.close()]);
  await devnet?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * Measures one poll with 100 and then 400 launches awaiting the wallet (`decided` checks each poll's two touched
 * launches): the requests of each are at most c0 + c1 * newBlocks + c2 * touched (c0: both heads and both
 * checkpoints; c1: one block read; c2: a transaction and a receipt on both providers), one log query, and the same
 * with 400 launches as with 100; every launch nothing named moved its search on to the head.
 */
async function expectCostOfBlocks(lane: MeasuredLane, decided: (mismatched: string, reverted: string) => void) {
  const polls = [];
  for (const total of [100, 400]) {
    const poll = await measuredPoll(lane, total);
    decided(poll.mismatched, poll.reverted);
    polls.push(poll);
  }
  if (process.env.TRACKER_COST_PRINT) console.log(lane.table, JSON.stringify(polls.map((p) => p.calls)));
  const bound = 8 + newBlocks + 4 * 2;
  for (const poll of polls) {
    expect(poll.total, JSON.stringify(poll.calls)).toBeLessThanOrEqual(bound);
    expect(poll.calls.eth_getLogs, JSON.stringify(poll.calls)).toBe(1);
  }
  const [small, large] = polls as [(typeof polls)[0], (typeof polls)[0]];
  expect(large.calls).toEqual(small.calls);
  const behind = db
    .prepare(`SELECT COUNT(*) AS n FROM ${lane.table} WHERE status = ? AND tracked_to_block IS NOT ?`)
    .get(lane.awaiting, Number(await reader.getBlockNumber({ cacheTime: 0 }))) as { n: number };
  expect(behind.n).toBe(0);
}

describe('the RPC cost of one tracker poll', () => {
  it('V4: bounded by the new blocks and the launches they name, the same with 100 and with 400 awaiting launches', async () => {
    await expectCostOfBlocks(v4, (mismatchedId, revertedId) => {
      // Both kinds of touch are still decided as before: a differing call is a mismatch, the exact bytes reverted.
      const mismatched = launchRow(v4, mismatchedId);
      expect(mismatched.status).toBe('wallet_action_required');
      expect(mismatched.findings_json).toContain('WALLET_TRANSACTION_MISMATCH');
      const reverted = launchRow(v4, revertedId);
      expect(reverted.status).toBe('failed');
      expect(reverted.failure_json).toContain('WALLET_TRANSACTION_REVERTED');
    });
  }, 60_000);

  it('shared lane: bounded by the new blocks and the launches they name, the same with 100 and with 400', async () => {
    await expectCostOfBlocks(shared, (mismatchedId, revertedId) => {
      const mismatched = launchRow(shared, mismatchedId);
      expect(mismatched.status).toBe('authorized');
      expect(mismatched.finding_codes_json).toContain('WALLET_TRANSACTION_MISMATCH');
      const reverted = launchRow(shared, revertedId);
      expect(reverted.status).toBe('failed');
      expect(reverted.failure_json).toContain('WALLET_TRANSACTION_REVERTED');
    });
  }, 60_000);

  it('V4: the reorg check reads each mined height once a poll, the same with 100 and with 300 mined launches', async () => {
    const head = await reader.getBlockNumber({ cacheTime: 0 });
    const heights = [head - 1n, head];
    const hashes = await Promise.all(heights.map(async (n) => (await reader.getBlock({ blockNumber: n })).hash));
    const soft = db.prepare(
      "UPDATE launches SET status = 'sequencer_soft_confirmed', chain_evidence_json = ? WHERE launch_id = ?",
    );
    const counts = [];
    for (const total of [100, 300]) {
      // Every launch still searched has searched to the head: this poll reads no block range.
      db.prepare('UPDATE launches SET tracked_to_block = ? WHERE tracked_to_block IS NOT NULL').run(Number(head));
      const mined = (
        db.prepare("SELECT COUNT(*) AS n FROM launches WHERE status = 'sequencer_soft_confirmed'").get() as {
          n: number;
        }
      ).n;
      const more = awaitingIds(v4).slice(0, total - mined);
      db.transaction(() => {
        more.forEach((id, i) => {
          const at = i % 2;
          const evidence = {
            transactionHash: `0x${'cd'.repeat(32)}`,
            blockNumber: String(heights[at]),
            blockHash: hashes[at],
            finalizedAt: null,
          };
          soft.run(JSON.stringify(evidence), id);
        });
      })();
      a.resetCounts();
      b.resetCounts();
      await v4.tick();
      counts.push({ a: a.counts(), b: b.counts() });
    }
    // Both heads, both checkpoints and one block read per mined height on each provider; no log query.
    for (const { a: first, b: second } of counts) {
      expect(first).toEqual({ eth_getBlockByNumber: 3 + heights.length });
      expect(second).toEqual({ eth_getBlockByNumber: 3 + heights.length });
    }
    const held = db.prepare("SELECT COUNT(*) AS n FROM launches WHERE status = 'sequencer_soft_confirmed'").get() as {
      n: number;
    };
    expect(held.n).toBe(300);
  }, 60_000);
});
