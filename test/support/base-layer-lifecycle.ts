import { randomUUID } from 'node:crypto';
import type { CustomLaunchCreateRequestV3 } from '../../generated/types/service.ts';
import { mintWalletKey, type Principal } from '../../src/auth/keys.ts';
import { digestOf } from '../../src/core/request-hashes.ts';
import type { Db } from '../../src/store/db.ts';

/**
 * Stores a base-layer launch as createCustomLaunchV3 admits it (status received, its job scheduled), for the
 * lifecycle tests that drive the worker in-process or seed a server's database before it starts. Returns its id and
 * the wallet key's principal that owns it (a fresh key of the launch wallet, chain 1).
 */
export function storeBaseLaunch(
  db: Db,
  request: CustomLaunchCreateRequestV3,
  nowMs = Date.now(),
): { launchId: string; principal: Principal; apiKey: string } {
  const { principal, apiKey } = mintWalletKey(db, {
    wallet: request.launchWallet,
    scopes: ['custom-launch:create', 'custom-launch:read'],
    chains: ['1'],
  });
  const launchId = randomUUID();
  const at = new Date(nowMs).toISOString();
  const funding =
    request.funding.mode === 'eip3009'
      ? {
          token: request.funding.token,
          amount: request.funding.amount,
          recipient: request.funding.recipient,
          typedData: null,
          signature: null,
          verifiedAt: null,
          lastRejection: null,
        }
      : null;
  db.transaction(() => {
    db.prepare(
      `INSERT INTO v3_launches (launch_id, lineage_id, partner_id, owner_key_id, profile_version, funding_mode,
         status, launch_wallet, request_hash, launch_intent_hash, request_bytes, funding_authorization_json,
         created_at, updated_at)
       VALUES (?, ?, NULL, ?, ?, ?, 'received', ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      launchId,
      principal.lineageId,
      principal.keyId,
      request.profile.version,
      request.funding.mode,
      request.launchWallet,
      digestOf(request),
      request.launchIntentHash,
      Buffer.from(JSON.stringify(request), 'utf8'),
      funding ? JSON.stringify(funding) : null,
      at,
      at,
    );
    db.prepare(
      `INSERT INTO v3_lifecycle_jobs (launch_id, state, attempt, next_attempt_ms, updated_at)
         VALUES (?, 'scheduled', 0, ?, ?)`,
    ).run(launchId, nowMs, at);
  })();
  return { launchId, principal, apiKey };
}
