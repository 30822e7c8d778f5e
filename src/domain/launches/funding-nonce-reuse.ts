import type { CustomLaunchCreateRequestV4 } from '../../../generated/types/service.ts';
import type { Db } from '../../store/db.ts';
import { statement } from '../../store/statements.ts';

/**
 * The condition of FUNDING_NONCE_DERIVATION_CONFLICT_SUSPECTED (spec/schemas/custom-launch-create-request.v4.schema.json,
 * LaunchNonce): this server already holds another profile 4.1.0 launch request of the same launchWallet on the same
 * chain (another launchIntentHash, so not an exact replay or the launch itself) that carries the same nonce. Read only.
 */
export function fundingNonceSeenInOtherRequest(db: Db, request: CustomLaunchCreateRequestV4): boolean {
  if (request.profile !== '4.1.0') return false;
  const wallet = request.launchWallet.toLowerCase();
  // Every launch stored since intent claims holds its wallet:nonce in the indexed wallet_nonce column, so one index
  // lookup finds it; only rows stored before the claims (wallet_nonce NULL) are narrowed by instr() over their bytes.
  // Parsing then confirms the nonce field.
  const rows = statement(
    db,
    `SELECT request_bytes FROM launches
       WHERE chain_id = ? AND wallet_nonce = ? AND profile = '4.1.0' AND launch_intent_hash <> ?
     UNION ALL
     SELECT request_bytes FROM launches
       WHERE chain_id = ? AND wallet_nonce IS NULL AND profile = '4.1.0' AND lower(launch_wallet) = ?
         AND launch_intent_hash <> ? AND instr(request_bytes, ?) > 0`,
  ).all(
    request.chainId,
    `${wallet}:${request.nonce}`,
    request.launchIntentHash,
    request.chainId,
    wallet,
    request.launchIntentHash,
    Buffer.from(request.nonce, 'utf8'),
  ) as Array<{ request_bytes: Buffer }>;
  return rows.some(
    (row) => (JSON.parse(row.request_bytes.toString('utf8')) as { nonce?: unknown }).nonce === request.nonce,
  );
}
