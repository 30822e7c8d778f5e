import { erc20Abi, getAddress, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multiRolePermitOfCalldata } from '../../src/chain/multi-role-launch-chain.ts';
import { toMultiRoleLaunchResource } from '../../src/domain/multi-role/launch-resource.ts';
import { multiRoleLaunchRow, multiRoleLaunchTransitions } from '../../src/domain/multi-role/launch-store.ts';
import { schemaProblems } from '../../src/spec/schema-registry.ts';
import {
  account0,
  broadcastFrom0,
  driveMultiRoleTo,
  type MultiRoleDevnet,
  startMultiRoleDevnet,
} from '../support/multi-role-devnet.ts';
import { createMultiRoleLaunch, packTidewater } from '../support/multi-role-launch.ts';

let lane: MultiRoleDevnet;

beforeAll(async () => {
  lane = await startMultiRoleDevnet('tracker');
}, 120_000);

afterAll(async () => {
  await lane?.stop();
});

const statusOf = (launchId: string) => multiRoleLaunchRow(lane.db, launchId)?.status;
const resourceOf = (launchId: string) => {
  const row = multiRoleLaunchRow(lane.db, launchId);
  if (!row) throw new Error(`no launch ${launchId}`);
  const resource = toMultiRoleLaunchResource(row);
  expect(schemaProblems('multi-role-resource.v2.schema.json', resource)).toEqual([]);
  return resource;
};
const rpc = () => lane.devnet.deployment.rpcUrl;

/** A fresh launch of the example driven to authorized; its bound exact transaction. */
async function authorizedLaunch() {
  const packed = await packTidewater(lane.devnet.multiRoleDeployment, account0.address);
  const { launchId } = createMultiRoleLaunch(lane.db, packed, lane.ctx.now);
  await driveMultiRoleTo(lane, launchId, 'authorized');
  const tx = resourceOf(launchId).walletTransaction;
  if (!tx) throw new Error('authorized without a wallet transaction');
  return { launchId, tx };
}

describe('the shared lane tracker on a chain-4663 devnet (in process, real anvil and SQLite)', () => {
  it('fails a launch whose intent a transaction one calldata byte off the exact one stamped', async () => {
    const { launchId, tx } = await authorizedLaunch();
    const last = Number.parseInt(tx.data.slice(-2), 16);
    const offByOne = `${tx.data.slice(0, -2)}${((last + 1) % 256).toString(16).padStart(2, '0')}`;
    await broadcastFrom0(rpc(), { ...tx, data: offByOne });
    await lane.tracker.tick();
    expect(statusOf(launchId)).toBe('failed');
    expect(resourceOf(launchId).failure).toMatchObject({ code: 'WALLET_TRANSACTION_MISMATCH' });
  }, 120_000);

  it('keeps waiting after a launch call of the wallet that differs and did not stamp, then accepts the exact one', async () => {
    const { launchId, tx } = await authorizedLaunch();
    // One wei more than the permit allows: the router reverts, nothing is stamped.
    await broadcastFrom0(rpc(), { ...tx, valueWei: (BigInt(tx.valueWei) + 1n).toString() });
    await lane.tracker.tick();
    expect(statusOf(launchId)).toBe('authorized');
    expect(resourceOf(launchId).findingCodes).toContain('WALLET_TRANSACTION_MISMATCH');
    await broadcastFrom0(rpc(), tx);
    await lane.tracker.tick();
    expect(statusOf(launchId)).toBe('submitted');
  }, 120_000);

  it('fails a launch whose exact transaction was mined and reverted', async () => {
    const { launchId, tx } = await authorizedLaunch();
    // The exact bytes with too little gas: mined, reverted, the intent still unstamped.
    await broadcastFrom0(rpc(), tx, 300_000n);
    await lane.tracker.tick();
    expect(statusOf(launchId)).toBe('failed');
    expect(resourceOf(launchId).failure).toMatchObject({ code: 'WALLET_TRANSACTION_REVERTED' });
  }, 120_000);

  it('returns a submitted launch to authorized when its block is reorganized away, then accepts the exact one again', async () => {
    const { launchId, tx } = await authorizedLaunch();
    await broadcastFrom0(rpc(), tx);
    await lane.tracker.tick();
    expect(statusOf(launchId)).toBe('submitted');
    const mined = BigInt(resourceOf(launchId).chainEvidence?.blockNumber ?? 0);
    const head = await lane.reader.getBlockNumber();
    await lane.testClient.request({ method: 'anvil_reorg' as never, params: [Number(head - mined + 1n), []] as never });
    await lane.tracker.tick();
    const back = resourceOf(launchId);
    expect(back).toMatchObject({
      status: 'authorized',
      chainEvidence: null,
      publicOutput: null,
      walletTransaction: tx,
    });
    expect(back.findingCodes).toContain('CHAIN_REORG_DETECTED');
    await broadcastFrom0(rpc(), tx);
    await lane.tracker.tick();
    expect(statusOf(launchId)).toBe('submitted');
    await lane.testClient.mine({ blocks: 65 });
    await lane.tracker.tick();
    expect(statusOf(launchId)).toBe('finalized');
    expect(
      multiRoleLaunchTransitions(lane.db, launchId)
        .map((t) => t.to)
        .slice(-5),
    ).toEqual(['authorized', 'submitted', 'authorized', 'submitted', 'finalized']);
    // The finalizing transaction also lists the launch's token in the public registry the developer API reads.
    const finalized = resourceOf(launchId);
    const request = JSON.parse(multiRoleLaunchRow(lane.db, launchId)?.request_bytes.toString('utf8') ?? '{}');
    const tokenHook = getAddress(finalized.publicOutput?.tokenHookAddress as string);
    const decimals = await lane.reader
      .readContract({ address: tokenHook, abi: erc20Abi, functionName: 'decimals' })
      .catch(() => null);
    expect(
      lane.db
        .prepare(
          `SELECT lane, chain_id, token_address, token_name, token_symbol, token_decimals, transaction_hash
           FROM public_launches WHERE launch_id = ?`,
        )
        .get(launchId),
    ).toEqual({
      lane: 'multi-role',
      chain_id: '4663',
      token_address: tokenHook,
      token_name: request.projectMetadata.name,
      token_symbol: request.projectMetadata.symbol,
      token_decimals: decimals,
      transaction_hash: finalized.chainEvidence?.transactionHash,
    });
  }, 120_000);
});

describe('the permit of an authorized launch (moves the devnet clock an hour on: last)', () => {
  it.each([
    ['at its expiry', 0n, 'authorized'],
    ['one second after its expiry', 1n, 'failed'],
  ])(
    'a head block %s',
    async (_name, offsetSeconds, want) => {
      const { launchId, tx } = await authorizedLaunch();
      await lane.tracker.tick();
      const permit = multiRolePermitOfCalldata(tx.data as Hex);
      expect(resourceOf(launchId).permitExpiresAt).toBe(new Date(Number(permit?.expiresAt) * 1000).toISOString());
      await lane.testClient.setNextBlockTimestamp({ timestamp: (permit?.expiresAt ?? 0n) + offsetSeconds });
      await lane.testClient.mine({ blocks: 1 });
      await lane.tracker.tick();
      expect(statusOf(launchId)).toBe(want);
      if (want === 'failed') expect(resourceOf(launchId).failure).toMatchObject({ code: 'LAUNCH_PERMIT_EXPIRED' });
    },
    120_000,
  );
});
