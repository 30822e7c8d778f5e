import type {
  CustomLaunchCreateRequestV3,
  CustomLaunchFundingAuthorizationV3,
  CustomLaunchResourceV3,
} from '../../../generated/types/service.ts';
import type { Principal } from '../../auth/keys.ts';
import type { Db } from '../../store/db.ts';
import { parsedColumn as parsed, visibleLaneLaunch } from '../lanes/launch-access.ts';
import type { BaseLaunchRow } from './launch-store.ts';

/**
 * The resource of a stored base-layer launch: the bound request's wallet, profile and funding mode, the status and
 * what the lifecycle recorded with it (finding codes, fee certification, funding authorization, wallet transaction,
 * public output, chain evidence, failure). Spec: spec/schemas/custom-launch-resource.v3.schema.json
 * (createCustomLaunchV3, getCustomLaunchV3, listCustomLaunchesV3).
 */
export function toBaseLaunchResource(row: BaseLaunchRow): CustomLaunchResourceV3 {
  return {
    schemaVersion: 'platform.custom-launch-resource.v3',
    launchId: row.launch_id,
    chainId: '1',
    caip2: 'eip155:1',
    launchWallet: row.launch_wallet,
    partnerAttribution: parsed(row.partner_attribution_json),
    launchProfileVersion: row.profile_version,
    status: row.status,
    fundingMode: row.funding_mode,
    fundingAuthorization: fundingAuthorizationOf(row),
    requestHash: row.request_hash,
    findingCodes: JSON.parse(row.finding_codes_json),
    feeCertification: parsed(row.fee_certification_json),
    walletTransaction: parsed(row.wallet_transaction_json),
    publicOutput: parsed(row.public_output_json),
    chainEvidence: parsed(row.chain_evidence_json),
    failure: parsed(row.failure_json),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * The funding authorization of an eip3009 launch: the stored one, else the request's token, amount and recipient
 * with nothing yet to sign (a launch before awaiting_funding_authorization). Null for native funding.
 */
function fundingAuthorizationOf(row: BaseLaunchRow): CustomLaunchFundingAuthorizationV3 | null {
  if (row.funding_mode === 'native') return null;
  const stored = parsed<CustomLaunchFundingAuthorizationV3>(row.funding_authorization_json);
  if (stored) return stored;
  const request = JSON.parse(row.request_bytes.toString('utf8')) as CustomLaunchCreateRequestV3;
  return initialFundingAuthorization(request);
}

/**
 * The funding authorization stored at create for an eip3009 request (null for native funding): the token, amount and
 * recipient with nothing to sign yet (spec/schemas/custom-launch-resource.v3.schema.json FundingAuthorization).
 */
export function initialFundingAuthorization(
  request: CustomLaunchCreateRequestV3,
): CustomLaunchFundingAuthorizationV3 | null {
  const funding = request.funding;
  if (funding.mode !== 'eip3009') return null;
  return {
    token: funding.token,
    amount: funding.amount,
    recipient: funding.recipient,
    typedData: null,
    signature: null,
    verifiedAt: null,
    lastRejection: null,
  };
}

/**
 * A base-layer launch in the credential's visibility (as for V4: a partner root its partner's, a subkey its lineage,
 * a wallet key its wallet's launches no partner made), else 404 NOT_FOUND: a launch outside it answers exactly like a missing one
 * (spec/openapi/paths/v3-custom-launch.yaml getCustomLaunchV3, and every operation on one launch).
 */
export function visibleBaseLaunch(db: Db, principal: Principal, launchId: string): BaseLaunchRow {
  return visibleLaneLaunch<BaseLaunchRow>(db, 'v3_launches', principal, launchId, 'base-layer');
}
