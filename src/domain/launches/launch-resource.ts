import type { components } from '../../../generated/types/service.ts';

/** The V4 launch resource, generated from spec/schemas/custom-launch-resource.v4.schema.json. */
export type CustomLaunchResourceV4 = components['schemas']['CustomLaunchResourceV4'];

/** A launches row as stored. */
export interface LaunchRow {
  seq: number;
  launch_id: string;
  chain_id: string;
  lineage_id: string;
  partner_id: string | null;
  owner_key_id: string;
  profile: string;
  status: string;
  launch_wallet: string;
  request_digest: string;
  launch_intent_hash: string;
  created_at: string;
  updated_at: string;
}

/**
 * The resource of a stored launch. Fields that later lifecycle steps fill (walletTransaction, chainEvidence,
 * findings, remediation, failure) are derived from status; a launch in `received` carries none of them.
 * Spec: launch-transport.md Response resources, States.
 */
export function toLaunchResource(row: LaunchRow): CustomLaunchResourceV4 {
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
    partnerAttribution: null,
    walletTransaction: null,
    chainEvidence: null,
    findings: [],
    remediation: null,
    failure: null,
    lifecycleQueue: { state: 'idle', attempt: 0, maxAttempts: 5, nextAttemptAt: null, lastErrorCode: null },
  } as CustomLaunchResourceV4;
}
