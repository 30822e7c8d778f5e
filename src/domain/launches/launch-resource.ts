import type {
  CustomLaunchCreateRequestV4,
  CustomLaunchPermitReissueV4,
  CustomLaunchResourceV4,
} from '../../../generated/types/service.ts';
import type { Principal } from '../../auth/keys.ts';
import type { Db } from '../../store/db.ts';
import { statement } from '../../store/statements.ts';

/** A launch row joined with its lifecycle job, as `launchSelect` reads it. */
export interface LaunchRow {
  seq: number;
  launch_id: string;
  chain_id: string;
  lineage_id: string;
  partner_id: string | null;
  owner_key_id: string;
  owner_kind: 'wallet' | 'partner-root' | 'subkey';
  profile: string;
  status: string;
  launch_wallet: string;
  request_digest: string;
  launch_intent_hash: string;
  created_at: string;
  updated_at: string;
  findings_json: string;
  remediation_json: string | null;
  failure_json: string | null;
  wallet_transaction_json: string | null;
  /** The stored request's projectMetadataHash and projectMetadata, read only while a wallet transaction exists. */
  bound_metadata_hash: string | null;
  bound_metadata_json: string | null;
  chain_evidence_json: string | null;
  /** The permit-reissue disposition (spec permitReissue), null while the permit never expired. */
  permit_reissue_json: string | null;
  finalized_item_json: string | null;
  job_state: string | null;
  job_attempt: number | null;
  job_deadline_ms: number | null;
  job_next_attempt_ms: number | null;
  job_last_error_code: string | null;
}

/** The one SELECT of a launch with its job; callers add `WHERE` and `ORDER BY`. */
export const launchSelect = `SELECT l.seq, l.launch_id, l.chain_id, l.lineage_id, l.partner_id, l.owner_key_id, l.profile,
  l.status, l.launch_wallet, l.request_digest, l.launch_intent_hash, l.created_at, l.updated_at, l.findings_json,
  l.remediation_json, l.failure_json, l.wallet_transaction_json,
  CASE WHEN l.wallet_transaction_json IS NOT NULL
    THEN json_extract(CAST(l.request_bytes AS TEXT), '$.projectMetadataHash') END AS bound_metadata_hash,
  CASE WHEN l.wallet_transaction_json IS NOT NULL
    THEN json_extract(CAST(l.request_bytes AS TEXT), '$.projectMetadata') END AS bound_metadata_json,
  l.chain_evidence_json, l.permit_reissue_json, j.state AS job_state, j.attempt AS job_attempt, j.deadline_ms AS job_deadline_ms,
  j.next_attempt_ms AS job_next_attempt_ms, j.last_error_code AS job_last_error_code,
  f.item_json AS finalized_item_json, k.kind AS owner_kind
  FROM launches l LEFT JOIN lifecycle_jobs j ON j.launch_id = l.launch_id
  LEFT JOIN finalized_feed f ON f.launch_id = l.launch_id
  JOIN api_keys k ON k.key_id = l.owner_key_id`;

/**
 * The resource of a stored launch: status, the server-authored findings, remediation and failure the lifecycle
 * recorded, the exact wallet transaction bound at `authorized`, and the lifecycle queue's scheduling state (which
 * never changes the status by itself), and the chain evidence the post-authorization tracker observed.
 * Spec: spec/schemas/custom-launch-resource.v4.schema.json (getCustomLaunchV4).
 */
export function toLaunchResource(row: LaunchRow): CustomLaunchResourceV4 {
  const state = (row.job_state ?? 'idle') as CustomLaunchResourceV4['lifecycleQueue']['state'];
  const waits = state === 'scheduled' || state === 'retry_wait';
  return {
    schemaVersion: 'platform.custom-launch-resource.v4',
    apiVersion: 4,
    launchId: row.launch_id,
    chainId: '4663',
    caip2: 'eip155:4663',
    profile: row.profile as CustomLaunchResourceV4['profile'],
    status: row.status as CustomLaunchResourceV4['status'],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    launchWallet: row.launch_wallet,
    requestDigest: row.request_digest,
    launchIntentHash: row.launch_intent_hash,
    partnerAttribution: partnerAttributionOf(row),
    walletTransaction: row.wallet_transaction_json ? JSON.parse(row.wallet_transaction_json) : null,
    boundMetadata: boundMetadataOf(row),
    chainEvidence: row.chain_evidence_json ? JSON.parse(row.chain_evidence_json) : null,
    findings: JSON.parse(row.findings_json),
    remediation: row.remediation_json ? JSON.parse(row.remediation_json) : null,
    failure: row.failure_json ? JSON.parse(row.failure_json) : null,
    permitReissue: permitReissueOf(row),
    lifecycleQueue: {
      state,
      attempt: row.job_attempt ?? 0,
      deadlineAt: deadlineOf(row),
      nextAttemptAt: waits && row.job_next_attempt_ms !== null ? new Date(row.job_next_attempt_ms).toISOString() : null,
      lastErrorCode: row.job_last_error_code,
    },
    // Source verification starts after finalized; the finalized feed row holds it.
    ...(row.status === 'finalized' && row.finalized_item_json
      ? { sourceVerification: JSON.parse(row.finalized_item_json).sourceVerification }
      : {}),
  } as CustomLaunchResourceV4;
}

/** The launch's permit-reissue disposition (spec/schemas/custom-launch-resource.v4.schema.json PermitReissue). */
export function permitReissueOf(row: Pick<LaunchRow, 'permit_reissue_json'>): CustomLaunchPermitReissueV4 | null {
  return row.permit_reissue_json ? (JSON.parse(row.permit_reissue_json) as CustomLaunchPermitReissueV4) : null;
}

/**
 * Until when the lifecycle waits out transient failures (LifecycleQueue.deadlineAt): the validation deadline stored
 * with the job before authorized, the permit's expiry while the exact transaction is not yet mined, the decision
 * deadline while a permit-reissue decision is awaited, else none.
 */
function deadlineOf(row: LaunchRow): string | null {
  if (row.status === 'received' || row.status === 'validating') {
    // An idle job (no chain gates configured) has nothing to wait out and is never failed by the deadline.
    if (row.job_state === 'idle' || row.job_deadline_ms === null) return null;
    return new Date(row.job_deadline_ms).toISOString();
  }
  const reissue = permitReissueOf(row);
  if (row.status === 'wallet_action_required' && reissue?.status === 'awaiting_decision') {
    return reissue.decisionDeadlineAt;
  }
  const awaitingMined = ['authorized', 'awaiting_wallet_signature', 'wallet_action_required'].includes(row.status);
  if (!awaitingMined || !row.wallet_transaction_json) return null;
  return (JSON.parse(row.wallet_transaction_json) as { permitExpiresAt: string }).permitExpiresAt;
}

/**
 * The metadata the stored request bound, for the wallet review beside the wallet transaction and only while there is
 * one (spec/schemas/custom-launch-resource.v4.schema.json boundMetadata): the same metadata, read-only. The values
 * come unchanged from the stored request bytes, whose projectMetadataHash was checked at create.
 */
function boundMetadataOf(row: LaunchRow): CustomLaunchResourceV4['boundMetadata'] {
  if (row.wallet_transaction_json === null || row.bound_metadata_hash === null || row.bound_metadata_json === null)
    return null;
  return { projectMetadataHash: row.bound_metadata_hash, projectMetadata: JSON.parse(row.bound_metadata_json) };
}

/**
 * The provenance of a partner launch, derived by the server from the credential that created it and never from the
 * request (spec/schemas/custom-launch-resource.v4.schema.json partnerAttribution): the partner, the credential kind,
 * the creating subkey and its lineage. Null for a wallet key's launch. Every column it reads is written once, at
 * create.
 */
function partnerAttributionOf(row: LaunchRow): CustomLaunchResourceV4['partnerAttribution'] {
  if (row.partner_id === null) return null;
  const subkey = row.owner_kind === 'subkey';
  return {
    partnerId: row.partner_id,
    credentialKind: subkey ? 'partner_subkey' : 'partner_root',
    subkeyId: subkey ? row.owner_key_id : null,
    lineageId: row.lineage_id,
  };
}

/** The SQL condition of a credential's visibility over one lane's launch table, with its one parameter. */
export interface Visibility {
  /** A condition over the launch row (column names prefixed by the alias given), with one `?` for `value`. */
  where: string;
  value: string;
  /** Names the list a cursor is bound to: every credential with the same visibility reads the same list. */
  list: string;
}

/**
 * Which launches a credential may see, on every lane (spec/openapi/service.openapi.yaml `bearerAuth`): a partner
 * root its partner's; a partner subkey its own lineage; a wallet key every launch no partner made whose launchWallet
 * is the key's wallet (case-insensitive), whichever key of that wallet created it. A partner launch naming the wallet
 * stays outside a wallet key's visibility, and a partner credential gains nothing from its wallet.
 */
export function visibility(principal: Principal, alias = ''): Visibility {
  if (principal.kind === 'partner-root' && principal.partnerId) {
    return { where: `${alias}partner_id = ?`, value: principal.partnerId, list: `partner_id:${principal.partnerId}` };
  }
  if (principal.kind === 'wallet' && principal.wallet) {
    const wallet = principal.wallet.toLowerCase();
    return {
      where: `${alias}partner_id IS NULL AND lower(${alias}launch_wallet) = ?`,
      value: wallet,
      list: `wallet:${wallet}`,
    };
  }
  return { where: `${alias}lineage_id = ?`, value: principal.lineageId, list: `lineage_id:${principal.lineageId}` };
}

/** The stored request of a launch, parsed (its bytes were validated against the create schema at create). */
export function storedRequest(db: Db, launchId: string): CustomLaunchCreateRequestV4 {
  const row = statement(db, 'SELECT request_bytes FROM launches WHERE launch_id = ?').get(launchId) as
    | { request_bytes: Buffer }
    | undefined;
  if (!row) throw new Error(`launch ${launchId} is not stored`);
  return JSON.parse(row.request_bytes.toString('utf8')) as CustomLaunchCreateRequestV4;
}
