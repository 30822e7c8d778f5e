import type { MultiRoleCustomLaunchResourceV2 } from '../../../generated/types/service.ts';
import type { Principal } from '../../auth/keys.ts';
import type { Db } from '../../store/db.ts';
import { parsedColumn as parsed, visibleLaneLaunch } from '../lanes/launch-access.ts';
import type { MultiRoleLaunchRow } from './launch-store.ts';

/**
 * The resource of a stored shared-lane launch: the bound request's wallet, the status and what the lifecycle
 * recorded with it (finding codes, missing verification requirements, wallet transaction and its permit's expiry,
 * public output, chain evidence, failure). Spec: spec/schemas/multi-role-resource.v2.schema.json
 * (createMultiRoleCustomLaunch, getMultiRoleCustomLaunch, listMultiRoleCustomLaunches).
 */
export function toMultiRoleLaunchResource(row: MultiRoleLaunchRow): MultiRoleCustomLaunchResourceV2 {
  return {
    schemaVersion: 'platform.multi-role-custom-launch-resource.v2',
    launchId: row.launch_id,
    chainId: '4663',
    caip2: 'eip155:4663',
    launchWallet: row.launch_wallet,
    partnerAttribution: parsed(row.partner_attribution_json),
    status: row.status,
    requestHash: row.request_hash,
    findingCodes: JSON.parse(row.finding_codes_json),
    missingVerificationRequirements: JSON.parse(row.missing_verification_json),
    walletTransaction: parsed(row.wallet_transaction_json),
    permitExpiresAt: row.permit_expires_at,
    publicOutput: parsed(row.public_output_json),
    chainEvidence: parsed(row.chain_evidence_json),
    failure: parsed(row.failure_json),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * A shared-lane launch in the credential's visibility, else 404 NOT_FOUND: a launch outside it answers exactly like
 * a missing one (spec/openapi/paths/multi-role-custom-launch.yaml getMultiRoleCustomLaunch).
 */
export function visibleMultiRoleLaunch(db: Db, principal: Principal, launchId: string): MultiRoleLaunchRow {
  return visibleLaneLaunch<MultiRoleLaunchRow>(db, 'multi_role_launches', principal, launchId, 'shared-lane');
}
