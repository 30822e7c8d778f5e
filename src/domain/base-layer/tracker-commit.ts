import type { CustomLaunchFinalizedListV3, CustomLaunchResourceV3 } from '../../../generated/types/service.ts';
import type { BaseLaunchChain } from '../../chain/base-launch-chain.ts';
import type { Db } from '../../store/db.ts';
import { statement } from '../../store/statements.ts';
import { type BaseLaunchFields, type BaseLaunchRow, type BaseLaunchStatus, moveBaseLaunch } from './launch-store.ts';
import { type BaseWalletTransaction, failureJson } from './lifecycle-context.ts';
import { settleBaseJob } from './lifecycle-jobs.ts';

type ChainEvidence = NonNullable<CustomLaunchResourceV3['chainEvidence']>;
/** One item of the base-layer finalized feed (spec/schemas/custom-launch-finalized-list.v3.schema.json). */
export type BaseFinalizedItem = CustomLaunchFinalizedListV3['launches'][number];

/** What the tracker's steps read and write. */
export interface BaseTrackerContext {
  db: Db;
  chain: BaseLaunchChain;
  now: () => number;
  workerId: string;
  /** Blocks scanned per launch and poll at most, so one far-behind launch cannot stall the others. */
  maxBlocksPerPoll: number;
}

/**
 * Applies one observation: a status move with its columns, in one transaction, only while the launch still has the
 * status it was read with (moveBaseLaunch), the job following it (done when terminal). Returns whether it moved.
 */
export function commitTracked(
  ctx: BaseTrackerContext,
  row: BaseLaunchRow,
  to: BaseLaunchStatus,
  fields: BaseLaunchFields,
  feedItem?: BaseFinalizedItem,
): boolean {
  const nowMs = ctx.now();
  const at = new Date(nowMs).toISOString();
  return ctx.db
    .transaction((): boolean => {
      if (!moveBaseLaunch(ctx.db, { launchId: row.launch_id, from: row.status, to, worker: ctx.workerId, at }, fields))
        return false;
      settleBaseJob(ctx.db, row.launch_id, ['finalized', 'failed', 'cancelled'].includes(to) ? 'done' : 'idle', nowMs);
      if (feedItem) {
        statement(
          ctx.db,
          'INSERT OR IGNORE INTO v3_finalized_feed (launch_id, item_json, finalized_at) VALUES (?, ?, ?)',
        ).run(row.launch_id, JSON.stringify(feedItem), feedItem.finalizedAt);
      }
      return true;
    })
    .immediate();
}

/** Fails a tracked launch with a code, message and remediation. */
export function failTracked(
  ctx: BaseTrackerContext,
  row: BaseLaunchRow,
  to: 'failed' | 'cancelled',
  failure: { code: string; message: string; remediation: string },
): void {
  commitTracked(ctx, row, to, { failure_json: failureJson(failure.code, failure.message, failure.remediation) });
}

/** Adds a finding code to a launch without moving it (once). */
export function addTrackedFinding(ctx: BaseTrackerContext, row: BaseLaunchRow, code: string): void {
  const codes = JSON.parse(row.finding_codes_json) as string[];
  if (codes.includes(code)) return;
  row.finding_codes_json = JSON.stringify([...codes, code].slice(-64));
  statement(
    ctx.db,
    'UPDATE v3_launches SET finding_codes_json = ?, updated_at = ? WHERE launch_id = ? AND status = ?',
  ).run(row.finding_codes_json, new Date(ctx.now()).toISOString(), row.launch_id, row.status);
}

/** The exact wallet transaction bound to an authorized-onward launch. */
export function boundTransactionOf(row: BaseLaunchRow): BaseWalletTransaction {
  if (!row.wallet_transaction_json) throw new Error(`launch ${row.launch_id} has no bound wallet transaction`);
  return JSON.parse(row.wallet_transaction_json) as BaseWalletTransaction;
}

/** The chain evidence of a submitted launch. */
export function evidenceOf(row: BaseLaunchRow): ChainEvidence | null {
  return row.chain_evidence_json ? (JSON.parse(row.chain_evidence_json) as ChainEvidence) : null;
}
