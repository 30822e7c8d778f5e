import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MultiRoleCustomLaunchCreateRequestV2 } from '../../generated/types/service.ts';
import { multiRolePermitOfCalldata } from '../../src/chain/multi-role-launch-chain.ts';
import { mineBaseHookSalt } from '../../src/core/base-graph.ts';
import { multiRoleLaunchIntentHashOf } from '../../src/core/multi-role-graph.ts';
import { claimLaneJob, commitLaneStep } from '../../src/domain/lanes/lifecycle-jobs.ts';
import { listMultiRoleFinalized } from '../../src/domain/launches/finalized-feed.ts';
import { toMultiRoleLaunchResource } from '../../src/domain/multi-role/launch-resource.ts';
import { multiRoleLaunchRow, multiRoleLaunchTransitions } from '../../src/domain/multi-role/launch-store.ts';
import type { StoredMultiRoleBuild } from '../../src/domain/multi-role/lifecycle-context.ts';
import { multiRoleJobTables, multiRoleWorkerStatuses } from '../../src/domain/multi-role/lifecycle-jobs.ts';
import { gasBudgetExceeded } from '../../src/domain/multi-role/lifecycle-steps.ts';
import { MultiRoleTracker } from '../../src/domain/multi-role/tracker.ts';
import { schemaProblems } from '../../src/spec/schema-registry.ts';
import { testLifecycle } from '../support/lifecycle.ts';
import {
  account0,
  broadcastFrom0,
  driveMultiRoleTo,
  type MultiRoleDevnet,
  startMultiRoleDevnet,
} from '../support/multi-role-devnet.ts';
import { createMultiRoleLaunch, packTidewater, type TidewaterChanges } from '../support/multi-role-launch.ts';

let lane: MultiRoleDevnet;

beforeAll(async () => {
  lane = await startMultiRoleDevnet('lifecycle');
}, 120_000);

afterAll(async () => {
  await lane?.stop();
});

const rowOf = (launchId: string) => multiRoleLaunchRow(lane.db, launchId);
const resourceOf = (launchId: string) => {
  const row = rowOf(launchId);
  if (!row) throw new Error(`no launch ${launchId}`);
  const resource = toMultiRoleLaunchResource(row);
  expect(schemaProblems('multi-role-resource.v2.schema.json', resource)).toEqual([]);
  return resource;
};
const movesOf = (launchId: string) => multiRoleLaunchTransitions(lane.db, launchId).map((t) => `${t.from}>${t.to}`);

/** A fresh launch of the example (new nonce, new salts), created as the create operation admits it. */
async function launch(changes: TidewaterChanges = {}) {
  const packed = await packTidewater(lane.devnet.multiRoleDeployment, account0.address, changes);
  return { ...createMultiRoleLaunch(lane.db, packed, lane.ctx.now), packed };
}

/** A fresh launch whose packed request is changed by `change` and sealed again (its intent hash recomputed). */
async function launchChanged(change: (request: MultiRoleCustomLaunchCreateRequestV2) => void) {
  const packed = await packTidewater(lane.devnet.multiRoleDeployment, account0.address);
  const request = structuredClone(packed.request);
  change(request);
  request.launchIntentHash = multiRoleLaunchIntentHashOf(request);
  const bytes = Buffer.from(JSON.stringify(request), 'utf8');
  return createMultiRoleLaunch(lane.db, { request, bytes }, lane.ctx.now);
}

describe('the shared lane lifecycle on a chain-4663 devnet (in process, real anvil and SQLite)', () => {
  it('takes the example from received to finalized: the exact transaction, its permit expiry, the stamp and the lane feed', async () => {
    const { launchId, packed } = await launch();
    await driveMultiRoleTo(lane, launchId, 'authorized');
    expect(movesOf(launchId)).toEqual(['received>validating', 'validating>simulating', 'simulating>authorized']);
    const authorized = resourceOf(launchId);
    const router = lane.devnet.multiRoleDeployment.contracts.launchRouter.address;
    expect(authorized.walletTransaction).toEqual({
      chainId: '4663',
      from: account0.address,
      to: router.toLowerCase(),
      valueWei: packed.request.funding.valueWei,
      data: expect.stringMatching(/^0x[0-9a-f]+$/),
    });
    const permit = multiRolePermitOfCalldata(authorized.walletTransaction?.data as Hex);
    expect(permit).toMatchObject({
      launchIntentHash: `0x${packed.request.launchIntentHash.replace('sha256:', '')}`,
      wallet: account0.address,
      value: BigInt(packed.request.funding.valueWei),
    });
    expect((permit?.expiresAt ?? 0n) - (permit?.issuedAt ?? 0n)).toBe(3600n);
    expect(authorized.permitExpiresAt).toBe(new Date(Number(permit?.expiresAt) * 1000).toISOString());
    expect(authorized).toMatchObject({ publicOutput: null, chainEvidence: null, failure: null });

    const hash = await broadcastFrom0(lane.devnet.deployment.rpcUrl, authorized.walletTransaction as never);
    await driveMultiRoleTo(lane, launchId, 'submitted');
    const submitted = resourceOf(launchId);
    expect(submitted.publicOutput).toEqual({
      tokenHookAddress: packed.predicted.tokenHook.toLowerCase(),
      poolId: packed.predicted.poolId,
    });
    expect(submitted.chainEvidence).toMatchObject({ transactionHash: hash });
    await lane.testClient.mine({ blocks: 65 });
    await driveMultiRoleTo(lane, launchId, 'finalized');
    expect(movesOf(launchId).slice(3)).toEqual(['authorized>submitted', 'submitted>finalized']);
    const feed = listMultiRoleFinalized(lane.db, '4663', 25, undefined);
    expect(schemaProblems('multi-role-finalized-list.v2.schema.json', feed)).toEqual([]);
    expect(feed.launches.find((l) => l.launchId === launchId)).toEqual({
      launchId,
      chainId: '4663',
      launchWallet: account0.address,
      tokenHookAddress: packed.predicted.tokenHook.toLowerCase(),
      poolId: packed.predicted.poolId,
      transactionHash: hash,
      blockNumber: submitted.chainEvidence?.blockNumber,
      finalizedAt: expect.any(String),
    });
    const v4 = lane.db.prepare('SELECT COUNT(*) AS n FROM finalized_feed WHERE launch_id = ?').get(launchId);
    expect(v4).toEqual({ n: 0 });
  }, 120_000);

  it('holds a launch whose exact transaction reverts in the simulation in action_required, bound to nothing', async () => {
    // Below the v4 minimum sqrt price: the pool's initialization reverts inside the launch.
    const { launchId } = await launch({ liquidity: { sqrtPriceX96: '1' } });
    await driveMultiRoleTo(lane, launchId, 'action_required');
    expect(movesOf(launchId)).toEqual(['received>validating', 'validating>simulating', 'simulating>action_required']);
    const resource = resourceOf(launchId);
    expect(resource.findingCodes).toContain('MULTI_ROLE_SIMULATION_REVERTED');
    expect(resource).toMatchObject({ walletTransaction: null, permitExpiresAt: null, failure: null });
  }, 120_000);

  it.each([
    ['the gas cost one wei above the budget', 1n, true],
    ['the gas cost equal to the budget', 0n, false],
    ['the gas cost one wei below the budget', -1n, false],
  ])('the gas budget rule with %s', (_name, over, exceeded) => {
    const gasUsed = 1_234_567n;
    const gasPrice = 1_000_000_007n;
    expect(gasBudgetExceeded(gasUsed, gasPrice, gasUsed * gasPrice - over)).toBe(exceeded);
  });

  it.each([
    ['a budget of 1 wei', '1', 'action_required'],
    ["the example's budget of 0.05 native", '50000000000000000', 'authorized'],
  ])(
    'simulates against the gas budget: %s',
    async (_name, maxGasCostWei, want) => {
      const { launchId } = await launch({ funding: { maxGasCostWei } });
      await driveMultiRoleTo(lane, launchId, want as 'authorized' | 'action_required');
      const row = rowOf(launchId);
      const measured = (JSON.parse(row?.build_json ?? 'null') as StoredMultiRoleBuild).simulation;
      expect(BigInt(measured?.gasCostWei ?? -1)).toBe(
        BigInt(measured?.gasUsed ?? 0) * BigInt(measured?.gasPriceWei ?? 0),
      );
      expect(BigInt(measured?.gasCostWei ?? -1) > BigInt(maxGasCostWei)).toBe(want === 'action_required');
      const resource = resourceOf(launchId);
      expect(resource.findingCodes.includes('MULTI_ROLE_GAS_BUDGET_EXCEEDED')).toBe(want === 'action_required');
      expect(resource.walletTransaction === null).toBe(want === 'action_required');
    },
    120_000,
  );

  it.each([
    [
      'a token_hook whose declared init code hash the build does not reproduce',
      'token_hook',
      'needs_evidence',
      ['evidence_required'],
      ['source_code'],
    ],
    [
      'an initializer whose declared init code hash the build does not reproduce',
      'initializer',
      'action_required',
      ['MULTI_ROLE_INIT_CODE_MISMATCH'],
      [],
    ],
  ])(
    'validates %s',
    async (_name, role, want, codes, missing) => {
      const { contracts } = lane.devnet.multiRoleDeployment;
      const { launchId } = await launchChanged((request) => {
        const target = request.graph.targets.find((t) => t.role === role);
        if (!target) throw new Error(`no ${role}`);
        target.initCodeHash = `0x${'ab'.repeat(32)}`;
        // The token_hook's address still carries its mask under the declared hash: only the evidence is missing.
        if (role === 'token_hook') {
          target.salt = mineBaseHookSalt(
            contracts.graphFactory.address,
            contracts.launchRouter.address,
            target.initCodeHash as Hex,
            target.hookPermissionMask ?? 0,
          );
        }
      });
      await driveMultiRoleTo(lane, launchId, want as 'needs_evidence' | 'action_required');
      expect(movesOf(launchId)).toEqual(['received>validating', `validating>${want}`]);
      const resource = resourceOf(launchId);
      expect(resource.findingCodes).toEqual(expect.arrayContaining(codes));
      expect(resource.missingVerificationRequirements).toEqual(missing);
      expect(resource.walletTransaction).toBeNull();
    },
    120_000,
  );

  it('waits without chain 4663 and goes on once a process with it starts', async () => {
    const { launchId } = await launch();
    const { MultiRoleLifecycleWorker } = await import('../../src/domain/multi-role/lifecycle-worker.ts');
    const offline = new MultiRoleLifecycleWorker(
      { ...lane.ctx, chain: null },
      { workerId: 'worker-offline', lifecycle: testLifecycle, random: () => 0 },
    );
    while (await offline.tick()) {}
    expect(rowOf(launchId)?.status).toBe('validating');
    const job = lane.db
      .prepare('SELECT state, last_error_code FROM multi_role_lifecycle_jobs WHERE launch_id = ?')
      .get(launchId);
    expect(job).toEqual({ state: 'idle', last_error_code: 'CHAIN_NOT_CONFIGURED' });
    const online = new MultiRoleLifecycleWorker(lane.ctx, {
      workerId: 'worker-online',
      lifecycle: { ...testLifecycle, pollMs: 5 },
      random: () => 0,
    });
    const stop = online.start();
    try {
      for (let i = 0; i < 200 && rowOf(launchId)?.status !== 'authorized'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await stop();
    }
    expect(movesOf(launchId)).toEqual(['received>validating', 'validating>simulating', 'simulating>authorized']);
  }, 120_000);

  it('resumes after a worker died in each of its steps and after a tracker died mid-poll, without a doubled step', async () => {
    const { launchId } = await launch();
    const leaseMs = testLifecycle.leaseMs;
    for (const status of ['validating', 'simulating'] as const) {
      // A worker claims the job and dies before it commits: nothing is due for anyone until its lease expires.
      const dead = claimLaneJob(lane.db, multiRoleJobTables, multiRoleWorkerStatuses, {
        workerId: `dead-${status}`,
        nowMs: lane.ctx.now(),
        leaseMs,
      });
      expect(dead).toMatchObject({ launchId, status });
      expect(await lane.worker.tick()).toBe(false);
      lane.skew.ms += leaseMs + 1;
      expect(await lane.worker.tick()).toBe(true);
      // The presumed-dead worker comes back with its outcome: it no longer holds the lease and changes nothing.
      const late = commitLaneStep(
        lane.db,
        multiRoleJobTables,
        dead as NonNullable<typeof dead>,
        { workerId: `dead-${status}`, nowMs: lane.ctx.now() },
        { kind: 'move', to: status === 'validating' ? 'simulating' : 'authorized', next: 'scheduled' },
      );
      expect(late).toBe(false);
    }
    expect(rowOf(launchId)?.status).toBe('authorized');
    const second = new MultiRoleTracker({
      db: lane.db,
      chain: lane.chain,
      now: lane.ctx.now,
      workerId: 'tracker-2',
      maxBlocksPerPoll: 500,
    });
    await broadcastFrom0(lane.devnet.deployment.rpcUrl, resourceOf(launchId).walletTransaction as never);
    // Two trackers (a restarted process beside one that still polls) observe the same stamp at once.
    await Promise.all([lane.tracker.tick(), second.tick()]);
    expect(rowOf(launchId)?.status).toBe('submitted');
    await lane.testClient.mine({ blocks: 65 });
    await Promise.all([lane.tracker.tick(), second.tick()]);
    expect(rowOf(launchId)?.status).toBe('finalized');
    expect(movesOf(launchId)).toEqual([
      'received>validating',
      'validating>simulating',
      'simulating>authorized',
      'authorized>submitted',
      'submitted>finalized',
    ]);
    const rows = lane.db
      .prepare('SELECT COUNT(*) AS n FROM multi_role_finalized_feed WHERE launch_id = ?')
      .get(launchId);
    expect(rows).toEqual({ n: 1 });
  }, 120_000);
});
