import type { CustomLaunchResourceV3 } from '../../../generated/types/service.ts';
import type { Db } from '../../store/db.ts';
import { statement } from '../../store/statements.ts';
import { laneLaunchTransitions, moveLaneLaunch } from '../lanes/launch-table.ts';

/** A base-layer launch status (spec/schemas/custom-launch-resource.v3.schema.json Status). */
export type BaseLaunchStatus = CustomLaunchResourceV3['status'];

/** One row of `v3_launches` (src/store/migrations.ts, version 12). JSON columns hold spec shapes or null. */
export interface BaseLaunchRow {
  seq: number;
  launch_id: string;
  lineage_id: string;
  partner_id: string | null;
  owner_key_id: string;
  profile_version: CustomLaunchResourceV3['launchProfileVersion'];
  funding_mode: 'native' | 'eip3009';
  status: BaseLaunchStatus;
  launch_wallet: string;
  request_hash: string;
  launch_intent_hash: string;
  request_bytes: Buffer;
  partner_attribution_json: string | null;
  finding_codes_json: string;
  fee_certification_json: string | null;
  funding_authorization_json: string | null;
  build_json: string | null;
  wallet_transaction_json: string | null;
  public_output_json: string | null;
  chain_evidence_json: string | null;
  failure_json: string | null;
  rule_set_revision: number | null;
  tracked_to_block: number | null;
  created_at: string;
  updated_at: string;
}

/** The columns a lifecycle step may set along with a status move. */
export type BaseLaunchFields = Partial<
  Pick<
    BaseLaunchRow,
    | 'finding_codes_json'
    | 'fee_certification_json'
    | 'funding_authorization_json'
    | 'build_json'
    | 'wallet_transaction_json'
    | 'public_output_json'
    | 'chain_evidence_json'
    | 'failure_json'
    | 'rule_set_revision'
    | 'tracked_to_block'
  >
>;

/** Terminal base-layer statuses: nothing moves a launch out of them. */
export const terminalBaseStatuses: readonly BaseLaunchStatus[] = ['finalized', 'failed', 'cancelled'];

/** The stored row of a base-layer launch, or undefined. */
export function baseLaunchRow(db: Db, launchId: string): BaseLaunchRow | undefined {
  return statement(db, 'SELECT * FROM v3_launches WHERE launch_id = ?').get(launchId) as BaseLaunchRow | undefined;
}

const tables = { launches: 'v3_launches', transitions: 'v3_launch_transitions' } as const;

/**
 * Moves a launch from `from` to `to` and sets `fields`, only if its status is still `from`; records the transition
 * once (v3_launch_transitions). Returns false (and changes nothing) when another step moved it first. Call inside
 * the transaction that commits the step's outcome.
 */
export function moveBaseLaunch(
  db: Db,
  move: { launchId: string; from: BaseLaunchStatus; to: BaseLaunchStatus; worker: string; at: string },
  fields: BaseLaunchFields = {},
): boolean {
  return moveLaneLaunch(db, tables, move, fields);
}

/** The statuses a launch passed through, oldest first (for tests and the audit of a resumed worker). */
export function baseLaunchTransitions(db: Db, launchId: string): Array<{ from: string; to: string }> {
  return laneLaunchTransitions(db, tables, launchId);
}
