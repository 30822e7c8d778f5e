import { beforeAll, describe, expect, it } from 'vitest';
import {
  frozenExampleManifest,
  fundedExampleManifest,
  permitReissueDevnet,
  routerLaunchOf,
  type v4DevnetLaunches,
} from '../support/v4-devnet-launch.ts';

/**
 * The lifetime the launch asks for (permitWindow.lifetimeSeconds), so its permit expires in real time while the chain's
 * clock follows the wall clock. A permit is issued at the latest block's time, which the devnet's price publisher
 * renews only every 20 s: the first permit may have 20 s less than its lifetime left at the handoff, and must not
 * expire before the test sees that handoff. The reissued one is issued on the head the test mined after the expiry; from
 * there the gates must run again (a fresh quote, a fresh checkpoint, the router simulation), the handoff be seen and
 * its exact transaction mined before it expires. That took under 2 s on an idle machine; on a loaded 2-core machine,
 * with a transient retry of a gate step, it can take ten times that. 45 s keeps that margin, and the test's one real
 * wait (for the first permit to expire) stays under a minute.
 */
const permitLifetimeSeconds = 45;

// One devnet for the file. The funded launch runs first: the frozen-profile tests then move the chain's clock an hour
// ahead of the server's, after which the server would see the devnet's price rounds dated in the future.
const devnet = permitReissueDevnet('permit-reissue');
let launches: ReturnType<typeof v4DevnetLaunches>;
beforeAll(() => {
  launches = devnet().launches;
});

/**
 * The permit-reissue disposition (spec/openapi/paths/v4-permit-reissue-disposition.yaml) of a funded launch, the
 * current profile 4.1.0 (a funding plan with an initial buy, a native/USD quote no older than 60 s gating each permit):
 * the permit expires in real time, no chain clock is moved, so the devnet's price rounds stay fresh for the server and
 * the reissued permit passes the funded gates again.
 */
describe('permit reissue of a funded launch on the devnet', () => {
  /**
   * Waits until the wall clock passes `expiresAt` (unix seconds), then mines until the chain's head does: the devnet's
   * clock follows the wall clock, and a freshly mined head also gives the reissued permit the latest issue time.
   */
  const pastInRealTime = async (expiresAt: bigint) => {
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(expiresAt) * 1000 + 1000 - Date.now())));
    for (let tries = 0; ; tries += 1) {
      await launches.testClient.mine({ blocks: 1 });
      if ((await launches.reader.getBlock()).timestamp > expiresAt) return;
      expect(tries).toBeLessThan(10);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  };

  it('expires in real time, reissues a funded permit through the gates again, and follows it to finalized', async () => {
    const launch = await launches.handedOff(undefined, {}, fundedExampleManifest(permitLifetimeSeconds));
    expect(launch.profile).toBe('4.1.0');
    const request = launches.requests.get(launch.launchId);
    if (request?.profile !== '4.1.0') throw new Error('the example packs the funded profile 4.1.0');
    const { fundingPlan } = request;
    const first = routerLaunchOf(launch.walletTransaction.data);
    expect(first.permit.expiresAt - first.permit.issuedAt).toBe(BigInt(permitLifetimeSeconds));
    expect(launch.walletTransaction.permitExpiresAt).toBe(
      new Date(Number(first.permit.expiresAt) * 1000).toISOString(),
    );
    expect(first.permit.value).toBe(BigInt(fundingPlan.walletTransactionValueWei));
    expect(first.params.initialBuyNative).toBe(BigInt(fundingPlan.nativeAllocations.initialBuyWei));
    expect(first.params.initialBuyNative).toBeGreaterThan(0n);

    // Not broadcast: the permit expires in real time, and a block is mined after it.
    await pastInRealTime(first.permit.expiresAt);
    const waiting = await launches.awaitingReissue(launch);
    expect(Date.parse(waiting.permitReissue.decisionDeadlineAt) - Date.now()).toBeGreaterThan(590_000);

    const again = await launches.reissued(launch);
    // The funded gates ran again: a new permit for the same intent, wallet and exact value, issued after the first
    // expired on a later finalized checkpoint, with the same requested lifetime and the same funded launch parameters
    // (a 4.1.0 permit is issued only with a fresh native/USD quote for the USD 1 initial-buy check).
    const second = routerLaunchOf(again.walletTransaction.data);
    expect(second.params).toEqual(first.params);
    expect(second.permit).toMatchObject({
      launchIntentHash: first.permit.launchIntentHash,
      wallet: first.permit.wallet,
      value: first.permit.value,
    });
    expect(second.permit.issuedAt).toBeGreaterThan(first.permit.expiresAt);
    expect(second.permit.expiresAt - second.permit.issuedAt).toBe(BigInt(permitLifetimeSeconds));
    expect(second.permit.checkpointBlockNumber).toBeGreaterThan(first.permit.checkpointBlockNumber);
    expect(again.walletTransaction.permitExpiresAt).toBe(
      new Date(Number(second.permit.expiresAt) * 1000).toISOString(),
    );
    expect(Date.now()).toBeLessThan(Number(second.permit.expiresAt) * 1000);

    const finalized = await launches.finalizedBy(launch.launchId, again.walletTransaction);
    expect(finalized.permitReissue).toMatchObject({ status: 'reissued', reissueCount: 1 });
    expect(finalized.chainEvidence.transactionHash).toBeTruthy();
    expect(await launches.stamped(launch)).toBe(true);
  }, 240_000);
});

/**
 * The permit-reissue disposition on a real devnet (spec/openapi/paths/v4-permit-reissue-disposition.yaml): the
 * chain's clock passes the permit before the exact transaction is mined, the controller decides `reissue`, the server
 * gates bind a new permit and wallet transaction for the same launch intent (the router has never stamped it), and
 * only that transaction is accepted: the expired one reverts on chain and is never taken for the launch's.
 */
describe('permit reissue on the devnet', () => {
  /** A handed-off launch whose permit the chain's clock passed: the launch awaits the controller's decision. */
  const expired = async () => {
    // The chain's clock runs an hour ahead of the server's from here: a frozen-profile launch needs no native/USD
    // quote (which the server would now see dated in the future) for its new permit.
    const launch = await launches.handedOff(undefined, {}, frozenExampleManifest());
    await launches.testClient.increaseTime({ seconds: 3601 });
    await launches.testClient.mine({ blocks: 1 });
    const waiting = await launches.awaitingReissue(launch);
    return { launch, waiting };
  };

  it('awaits the decision, binds a new permit and transaction on reissue, and follows that one to finalized', async () => {
    const { launch, waiting } = await expired();
    expect(Date.parse(waiting.permitReissue.decisionDeadlineAt) - Date.now()).toBeGreaterThan(590_000);

    const again = await launches.reissued(launch);
    const finalized = await launches.finalizedBy(launch.launchId, again.walletTransaction);
    expect(finalized.permitReissue).toMatchObject({ status: 'reissued', reissueCount: 1 });
    expect(await launches.stamped(launch)).toBe(true);
  }, 180_000);

  it('refuses the expired transaction broadcast after the reissue: it reverts, is a mismatch, and is never accepted', async () => {
    const { launch } = await expired();
    const again = await launches.reissued(launch);
    expect(again.status, JSON.stringify(again.findings)).toBe('awaiting_wallet_signature');

    const stale = await launches.send(launch.walletTransaction);
    expect(stale.status).toBe('reverted');
    const refused = await launches.until(launch.launchId, ['wallet_action_required', 'submitted', 'failed']);
    expect(refused.status).toBe('wallet_action_required');
    expect(refused.chainEvidence).toBeNull();
    expect(refused.walletTransaction).toEqual(again.walletTransaction);
    expect(refused.findings).toContainEqual(
      expect.objectContaining({
        code: 'WALLET_TRANSACTION_MISMATCH',
        message: expect.stringContaining(stale.transactionHash),
      }),
    );
    expect(await launches.stamped(launch)).toBe(false);

    // The new exact transaction is still the launch's.
    const receipt = await launches.send(again.walletTransaction);
    expect(receipt.status).toBe('success');
    const soft = await launches.until(launch.launchId, ['sequencer_soft_confirmed']);
    expect(soft.chainEvidence).toMatchObject({ transactionHash: receipt.transactionHash });
  }, 180_000);
});
