import type { Principal } from '../../auth/keys.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { Db } from '../../store/db.ts';
import { statement } from '../../store/statements.ts';
import { visibility } from '../launches/launch-resource.ts';
import type { LaneTables } from './launch-table.ts';

/** What makes two create requests the same launch: the intent hash, or the wallet with its nonce. */
export interface LaunchIntent {
  launchIntentHash: string;
  launchWallet: string;
  nonce: string;
}

/** Where a lane keeps its launches: the table, and the chain when the table holds more than one (V4). */
export interface IntentLane {
  table: LaneTables['launches'];
  chainId: string | null;
}

/**
 * The claim columns of a new launch row (src/store/migrations.ts, version 15): the intent hash and the lower-cased
 * wallet with the nonce, each held by one launch of the lane (a unique index).
 */
export function intentClaimColumns(intent: LaunchIntent): { intent_claim: string; wallet_nonce: string } {
  return {
    intent_claim: intent.launchIntentHash,
    wallet_nonce: `${intent.launchWallet.toLowerCase()}:${intent.nonce}`,
  };
}

/**
 * Refuses a create whose intent the lane already holds: 409 LAUNCH_INTENT_CONFLICT, naming the existing launch in
 * `existingLaunchId` only when the caller's visibility includes it (createCustomLaunchV4, createCustomLaunchV3,
 * createMultiRoleCustomLaunch). Call inside the create's immediate transaction, before anything is written.
 */
export function refuseClaimedIntent(db: Db, lane: IntentLane, principal: Principal, intent: LaunchIntent): void {
  const claims = intentClaimColumns(intent);
  const v = visibility(principal);
  const chain = lane.chainId === null ? '' : 'chain_id = ? AND ';
  const rows = statement(
    db,
    `SELECT launch_id, (${v.where}) AS visible FROM ${lane.table}
       WHERE ${chain}(intent_claim = ? OR wallet_nonce = ?) ORDER BY seq`,
  ).all(v.value, ...(lane.chainId === null ? [] : [lane.chainId]), claims.intent_claim, claims.wallet_nonce) as Array<{
    launch_id: string;
    visible: number;
  }>;
  if (rows.length === 0) return;
  const named = rows.find((row) => row.visible === 1);
  throw new ApiError('LAUNCH_INTENT_CONFLICT', named ? { existingLaunchId: named.launch_id } : {});
}

/**
 * Runs a lane's launch insert. The unique claim indexes decide: when another process committed the same intent after
 * the check, the insert's SQLITE_CONSTRAINT_UNIQUE becomes the same 409 LAUNCH_INTENT_CONFLICT, never a 500.
 */
export function insertClaimingIntent(
  db: Db,
  lane: IntentLane,
  principal: Principal,
  intent: LaunchIntent,
  insert: () => void,
): void {
  try {
    insert();
  } catch (error) {
    if ((error as { code?: unknown }).code === 'SQLITE_CONSTRAINT_UNIQUE') {
      refuseClaimedIntent(db, lane, principal, intent);
    }
    throw error;
  }
}
