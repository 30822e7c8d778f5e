import { awaitPermitReissue } from '../../src/domain/launches/permit-reissue.ts';
import { exampleWallet, type TestServer } from './server.ts';

/*
 * Permit-reissue scenarios without a chain (decidePermitReissueV4, spec/openapi/paths/v4-permit-reissue-disposition.yaml):
 * a created launch reaches the wallet handoff by SQL, as the worker's chain gates would bind it, and its permit
 * expires through awaitPermitReissue, the function the tracker calls when the chain's head passed the permit with no
 * exact transaction mined. The devnet test test/chain/permit-reissue.test.ts drives the whole path on a chain.
 */

/** The exact wallet transaction a handed-off launch carries in these scenarios, its permit expiring at `expiresAt`. */
export const handoffTransaction = (expiresAt: string) => ({
  chainId: '4663',
  from: exampleWallet,
  to: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  valueWei: '10000000000000000',
  data: '0x1234',
  gasLimit: '500000',
  permitExpiresAt: expiresAt,
  simulationDigest: `sha256:${'ab'.repeat(32)}`,
});

/** Moves a created launch to awaiting_wallet_signature with its exact transaction (permit expiring at `atMs`). */
export function handOffBySql(s: TestServer, launchId: string, atMs: number): void {
  s.db
    .prepare(
      "UPDATE launches SET status = 'awaiting_wallet_signature', wallet_transaction_json = ?, tracked_to_block = 10 WHERE launch_id = ?",
    )
    .run(JSON.stringify(handoffTransaction(new Date(atMs).toISOString())), launchId);
  s.db.prepare("UPDATE lifecycle_jobs SET state = 'idle', next_attempt_ms = NULL WHERE launch_id = ?").run(launchId);
}

/** The tracker's expiry path for the launch at `nowMs`, on the server's configured decision window. */
export function expirePermit(
  s: TestServer,
  launchId: string,
  nowMs: number,
  from = 'awaiting_wallet_signature',
): boolean {
  return awaitPermitReissue(s.db, {
    launchId,
    from,
    expiredPermitExpiresAt: new Date(nowMs - 1000).toISOString(),
    nowMs,
    windowMs: s.config.lifecycle.permitReissueDecisionWindowMs,
    workerId: 'test-tracker',
  });
}

/** A permit-reissue decision request for the launch (the example wallet's), with `over` replacing fields. */
export const reissueDecisionBody = (
  launch: { launchId: string; requestDigest: string },
  over: Record<string, unknown> = {},
): string =>
  JSON.stringify({
    schemaVersion: 'platform.custom-launch-permit-reissue-disposition-request.v1',
    chainId: '4663',
    caip2: 'eip155:4663',
    launchId: launch.launchId,
    launchWallet: exampleWallet,
    requestDigest: launch.requestDigest,
    decision: 'reissue',
    ...over,
  });
