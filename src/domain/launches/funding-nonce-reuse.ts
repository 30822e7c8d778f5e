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
  // instr() narrows to rows whose bytes hold the nonce text; parsing then confirms it is their nonce field.
  const rows = statement(
    db,
    `SELECT request_bytes FROM launches
       WHERE chain_id = ? AND profile = '4.1.0' AND lower(launch_wallet) = ? AND launch_intent_hash <> ?
         AND instr(request_bytes, ?) > 0`,
  ).all(
    request.chainId,
    request.launchWallet.toLowerCase(),
    request.launchIntentHash,
    Buffer.from(request.nonce, 'utf8'),
  ) as Array<{ request_bytes: Buffer }>;
  return rows.some(
    (row) => (JSON.parse(row.request_bytes.toString('utf8')) as { nonce?: unknown }).nonce === request.nonce,
  );
}
