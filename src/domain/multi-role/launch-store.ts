import type { MultiRoleCustomLaunchResourceV2 } from '../../../generated/types/service.ts';
import type { Db } from '../../store/db.ts';
import { statement } from '../../store/statements.ts';
import { laneLaunchTransitions } from '../lanes/launch-table.ts';

/** A shared-lane launch status (spec/schemas/multi-role-resource.v2.schema.json status). */
export type MultiRoleLaunchStatus = MultiRoleCustomLaunchResourceV2['status'];

/** One row of `multi_role_launches` (src/store/migrations.ts, version 13). JSON columns hold spec shapes or null. */
export interface MultiRoleLaunchRow {
  seq: number;
  launch_id: string;
  lineage_id: string;
  partner_id: string | null;
  owner_key_id: string;
  profile_revision: number;
  status: MultiRoleLaunchStatus;
  launch_wallet: string;
  request_hash: string;
  launch_intent_hash: string;
  request_bytes: Buffer;
  partner_attribution_json: string | null;
  finding_codes_json: string;
  missing_verification_json: string;
  build_json: string | null;
  wallet_transaction_json: string | null;
  permit_expires_at: string | null;
  public_output_json: string | null;
  chain_evidence_json: string | null;
  failure_json: string | null;
  tracked_to_block: number | null;
  created_at: string;
  updated_at: string;
}

/** The columns a lifecycle step may set along with a status move. */
export type MultiRoleLaunchFields = Partial<
  Pick<
    MultiRoleLaunchRow,
    | 'finding_codes_json'
    | 'missing_verification_json'
    | 'build_json'
    | 'wallet_transaction_json'
    | 'permit_expires_at'
    | 'public_output_json'
    | 'chain_evidence_json'
    | 'failure_json'
    | 'tracked_to_block'
  >
>;

/** Terminal shared-lane statuses: nothing moves a launch out of them. */
export const terminalMultiRoleStatuses: readonly MultiRoleLaunchStatus[] = [
  'finalized',
  'failed',
  'action_required',
  'needs_evidence',
];

const tables = { launches: 'multi_role_launches', transitions: 'multi_role_launch_transitions' } as const;

/** The stored row of a shared-lane launch, or undefined. */
export function multiRoleLaunchRow(db: Db, launchId: string): MultiRoleLaunchRow | undefined {
  return statement(db, 'SELECT * FROM multi_role_launches WHERE launch_id = ?').get(launchId) as
    | MultiRoleLaunchRow
    | undefined;
}

/** The statuses a launch passed through, oldest first (for tests and the audit of a resumed worker). */
export function multiRoleLaunchTransitions(db: Db, launchId: string): Array<{ from: string; to: string }> {
  return laneLaunchTransitions(db, tables, launchId);
}
