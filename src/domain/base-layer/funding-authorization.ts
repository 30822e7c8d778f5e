import { type Address, type Hex, verifyTypedData } from 'viem';
import type {
  CustomLaunchFundingAuthorizationV3,
  CustomLaunchFundingTypedDataV3,
  CustomLaunchResourceV3,
} from '../../../generated/types/service.ts';
import type { Principal } from '../../auth/keys.ts';
import type { FundingTokenReader } from '../../chain/funding-token.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { Db } from '../../store/db.ts';
import { statement } from '../../store/statements.ts';
import { toBaseLaunchResource, visibleBaseLaunch } from './launch-resource.ts';
import { type BaseLaunchRow, type BaseLaunchStatus, baseLaunchRow, moveBaseLaunch } from './launch-store.ts';

export type { FundingTokenReader } from '../../chain/funding-token.ts';

type RejectionCode = NonNullable<CustomLaunchFundingAuthorizationV3['lastRejection']>['code'];

/** The transition log's name for a status move an API call made (a lifecycle worker logs its own id). */
export const apiWorker = 'api';

/** What the verification reads: the launch store, the clock and the funding token on chain 1 (null: no base layer). */
export interface FundingAuthorizationDeps {
  db: Db;
  now: () => number;
  reader: FundingTokenReader | null;
}

/**
 * submitFundingAuthorizationV3: verifies the controller's signature over the launch's stored typed data and moves
 * the launch from awaiting_funding_authorization to funding_authorization_verified (the signature and verifiedAt
 * shown, the lifecycle job woken). The checks, each with its own 409: the signer is launchWallet
 * (FUNDING_AUTHORIZATION_SIGNER_MISMATCH), the nonce is unused on chain 1 (…_NONCE_USED), now lies strictly inside
 * (validAfter, validBefore) (…_WINDOW_CLOSED), launchWallet holds the amount (…_BALANCE_INSUFFICIENT). A refusal is
 * recorded as fundingAuthorization.lastRejection and the launch keeps waiting. The verified signature sent again
 * answers the current resource unchanged; any other launch state is 409 FUNDING_AUTHORIZATION_NOT_AWAITED.
 * Spec: spec/openapi/paths/v3-custom-launch-funding-authorization.yaml.
 */
export async function submitFundingAuthorization(
  deps: FundingAuthorizationDeps,
  principal: Principal,
  launchId: string,
  signature: string,
): Promise<CustomLaunchResourceV3> {
  const row = visibleBaseLaunch(deps.db, principal, launchId);
  const stored = fundingOf(row);
  if (stored?.signature && stored.signature.toLowerCase() === signature.toLowerCase()) return toBaseLaunchResource(row);
  if (row.status !== 'awaiting_funding_authorization' || !stored?.typedData) {
    throw new ApiError('FUNDING_AUTHORIZATION_NOT_AWAITED');
  }
  if (!deps.reader) throw new ApiError('BASE_LAYER_NOT_CONFIGURED');
  const nowMs = deps.now();
  const refusal = await refusalOf(deps.reader, stored.typedData, signature as Hex, nowMs, row.launch_wallet as Address);
  const at = new Date(nowMs).toISOString();
  const moved = deps.db
    .transaction(() => {
      const funding: CustomLaunchFundingAuthorizationV3 = refusal
        ? { ...stored, lastRejection: { code: refusal, at } }
        : { ...stored, signature, verifiedAt: at };
      const from: BaseLaunchStatus = 'awaiting_funding_authorization';
      const to: BaseLaunchStatus = refusal ? from : 'funding_authorization_verified';
      const fields = { funding_authorization_json: JSON.stringify(funding) };
      if (!moveBaseLaunch(deps.db, { launchId, from, to, worker: apiWorker, at }, fields)) return false;
      if (!refusal) wakeJob(deps.db, launchId, nowMs, at);
      return true;
    })
    .immediate();
  // The lifecycle moved the launch on (an expiry, a cancellation) while the chain was read.
  if (!moved) throw new ApiError('FUNDING_AUTHORIZATION_NOT_AWAITED');
  if (refusal) throw new ApiError(refusal);
  return toBaseLaunchResource(baseLaunchRow(deps.db, launchId) as BaseLaunchRow);
}

function fundingOf(row: BaseLaunchRow): CustomLaunchFundingAuthorizationV3 | null {
  return row.funding_authorization_json === null
    ? null
    : (JSON.parse(row.funding_authorization_json) as CustomLaunchFundingAuthorizationV3);
}

/** The first check the signature fails, or null when it passes all; a chain read that fails is a retryable 503. */
async function refusalOf(
  reader: FundingTokenReader,
  typedData: CustomLaunchFundingTypedDataV3,
  signature: Hex,
  nowMs: number,
  launchWallet: Address,
): Promise<RejectionCode | null> {
  const { domain, message } = typedData;
  const from = launchWallet;
  if (!(await signedBy(typedData, signature, from))) return 'FUNDING_AUTHORIZATION_SIGNER_MISMATCH';
  const token = domain.verifyingContract as Address;
  try {
    if (await reader.authorizationState(token, from, message.nonce as Hex)) return 'FUNDING_AUTHORIZATION_NONCE_USED';
    const nowSeconds = BigInt(Math.floor(nowMs / 1000));
    if (!(BigInt(message.validAfter) < nowSeconds && nowSeconds < BigInt(message.validBefore))) {
      return 'FUNDING_AUTHORIZATION_WINDOW_CLOSED';
    }
    if ((await reader.balanceOf(token, from)) < BigInt(message.value))
      return 'FUNDING_AUTHORIZATION_BALANCE_INSUFFICIENT';
  } catch (err) {
    throw new ApiError('UNAVAILABLE', {
      message: `The funding token could not be read on chain 1 (${(err as Error).message.slice(0, 200)}); send the same signature again after Retry-After.`,
    });
  }
  return null;
}

/** Whether `signature` is `signer`'s over the exact typed data (a malformed signature recovers to nobody). */
async function signedBy(typedData: CustomLaunchFundingTypedDataV3, signature: Hex, signer: Address): Promise<boolean> {
  const { domain, types, message } = typedData;
  try {
    return await verifyTypedData({
      address: signer,
      domain: { ...domain, verifyingContract: domain.verifyingContract as Address },
      types: { ReceiveWithAuthorization: types.ReceiveWithAuthorization },
      primaryType: 'ReceiveWithAuthorization',
      message: {
        from: message.from as Address,
        to: message.to as Address,
        value: BigInt(message.value),
        validAfter: BigInt(message.validAfter),
        validBefore: BigInt(message.validBefore),
        nonce: message.nonce as Hex,
      },
      signature,
    });
  } catch {
    return false;
  }
}

/** The launch's job runs next as soon as it can: the verified authorization lets the lifecycle go on. */
function wakeJob(db: Db, launchId: string, nowMs: number, at: string): void {
  statement(
    db,
    `UPDATE v3_lifecycle_jobs
        SET state = CASE WHEN state = 'running' THEN state ELSE 'scheduled' END, next_attempt_ms = ?, updated_at = ?
      WHERE launch_id = ? AND state != 'done'`,
  ).run(nowMs, at, launchId);
}
