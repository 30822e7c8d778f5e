import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, createTestClient, type Hex, http, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { chain4663 } from '../../src/chain/chain.ts';
import { PermitAttester } from '../../src/chain/launch-permit.ts';
import { MultiRoleLaunchChain } from '../../src/chain/multi-role-launch-chain.ts';
import { devnetOperatorKey } from '../../src/devnet/anvil.ts';
import { devnetPermitAttesterKey, startDevnet } from '../../src/devnet/devnet.ts';
import { type MultiRoleLaunchStatus, multiRoleLaunchRow } from '../../src/domain/multi-role/launch-store.ts';
import type { MultiRoleLifecycleContext } from '../../src/domain/multi-role/lifecycle-context.ts';
import { MultiRoleLifecycleWorker } from '../../src/domain/multi-role/lifecycle-worker.ts';
import { pinnedMultiRoleLaunchRules } from '../../src/domain/multi-role/pinned-rules.ts';
import { MultiRoleTracker } from '../../src/domain/multi-role/tracker.ts';
import { type Db, openDatabase } from '../../src/store/db.ts';
import { testLifecycle } from './lifecycle.ts';
import { sendSigned } from './wallet-send.ts';

/** Anvil's account 0: the devnet's operator and the example's launch wallet. */
export const account0 = privateKeyToAccount(devnetOperatorKey);

/**
 * One chain-4663 devnet with the shared lane deployed, an in-process SQLite store, the lane's lifecycle worker and
 * tracker on it (real anvil, real SQLite), and clients for account 0's broadcasts and the devnet's clock. The
 * service clock is the wall clock plus `skew.ms`, which a test only moves forward.
 */
export interface MultiRoleDevnet {
  dir: string;
  devnet: Awaited<ReturnType<typeof startDevnet>>;
  db: Db;
  chain: MultiRoleLaunchChain;
  ctx: MultiRoleLifecycleContext;
  worker: MultiRoleLifecycleWorker;
  tracker: MultiRoleTracker;
  reader: PublicClient;
  testClient: ReturnType<typeof createTestClient>;
  skew: { ms: number };
  stop(): Promise<void>;
}

/** Starts the devnet and the in-process lane (`label` names its temporary folder). */
export async function startMultiRoleDevnet(label: string): Promise<MultiRoleDevnet> {
  const dir = mkdtempSync(join(tmpdir(), `multi-role-${label}-`));
  const devnet = await startDevnet({ outputDir: dir });
  const rpc = devnet.deployment.rpcUrl;
  const chain = new MultiRoleLaunchChain([rpc, rpc], devnet.multiRoleDeployment);
  const db = openDatabase(join(dir, 'in-process.sqlite'));
  const skew = { ms: 0 };
  const ctx: MultiRoleLifecycleContext = {
    db,
    rules: pinnedMultiRoleLaunchRules(devnet.multiRoleDeployment, devnet.deployment.contracts.poolManager.address),
    chain,
    attester: new PermitAttester(devnetPermitAttesterKey),
    now: () => Date.now() + skew.ms,
  };
  return {
    dir,
    devnet,
    db,
    chain,
    ctx,
    worker: new MultiRoleLifecycleWorker(ctx, { workerId: 'worker-1', lifecycle: testLifecycle, random: () => 0 }),
    tracker: new MultiRoleTracker({ db, chain, now: ctx.now, workerId: 'tracker-1', maxBlocksPerPoll: 500 }),
    reader: createPublicClient({ chain: chain4663(rpc), transport: http(rpc) }) as PublicClient,
    testClient: createTestClient({ chain: chain4663(rpc), mode: 'anvil', transport: http(rpc) }),
    skew,
    stop: async () => {
      db.close();
      await devnet.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Account 0 broadcasts a transaction (by default with enough gas) and waits until it is mined, reverted or not. */
export async function broadcastFrom0(
  rpcUrl: string,
  tx: { to: string; valueWei: string; data: string },
  gas = 12_000_000n,
): Promise<Hex> {
  return (await sendSigned(rpcUrl, chain4663(rpcUrl), account0, { ...tx, gas })).transactionHash;
}

/** Ticks the worker, and the tracker when the worker had nothing due, until the launch has `status`. */
export async function driveMultiRoleTo(lane: MultiRoleDevnet, launchId: string, status: MultiRoleLaunchStatus) {
  for (let i = 0; i < 40; i++) {
    const row = multiRoleLaunchRow(lane.db, launchId);
    if (row?.status === status) return row;
    if (['failed', 'finalized', 'action_required', 'needs_evidence'].includes(row?.status ?? '')) break;
    if (!(await lane.worker.tick())) await lane.tracker.tick();
  }
  const row = multiRoleLaunchRow(lane.db, launchId);
  throw new Error(
    `launch ${launchId} is ${row?.status}, not ${status}: ${row?.failure_json ?? row?.finding_codes_json}`,
  );
}
