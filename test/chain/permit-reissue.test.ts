import { beforeAll, describe, expect, it } from 'vitest';

import { frozenExampleManifest, permitReissueDevnet, type v4DevnetLaunches } from '../support/v4-devnet-launch.ts';

/**
 * The permit-reissue disposition on a real devnet (spec/openapi/paths/v4-permit-reissue-disposition.yaml): the
 * chain's clock passes the permit before the exact transaction is mined, the controller decides `reissue`, the server
 * gates bind a new permit and wallet transaction for the same launch intent (the router has never stamped it), and
 * only that transaction is accepted: the expired one reverts on chain and is never taken for the launch's.
 */
describe('permit reissue on the devnet', () => {
  const devnet = permitReissueDevnet('permit-reissue');
  let launches: ReturnType<typeof v4DevnetLaunches>;
  beforeAll(() => {
    launches = devnet().launches;
  });

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
