import type { Address, Hex } from 'viem';
import type { LaneStampEvent } from '../../chain/lane-launch-chain.ts';
import type { ObservedTransaction } from '../../chain/launch-observer.ts';
import type { LaunchPermit } from '../../chain/launch-permit.ts';
import type { Db } from '../../store/db.ts';
import { statement } from '../../store/statements.ts';
import { laneFailureJson, moveLaneLaunch } from './launch-table.ts';
import { type LaneFields, type LaneJobTables, settleLaneJob } from './lifecycle-jobs.ts';

/** The columns of a lane's launch row that its tracker reads (v3_launches, multi_role_launches). */
export interface LaneTrackedRow {
  launch_id: string;
  status: string;
  launch_wallet: string;
  launch_intent_hash: string;
  finding_codes_json: string;
  wallet_transaction_json: string | null;
  public_output_json: string | null;
  chain_evidence_json: string | null;
  tracked_to_block: number | null;
}

/** The exact wallet transaction a lane binds at authorized (each lane's resource schema WalletTransaction). */
export interface LaneWalletTransaction {
  chainId: string;
  from: string;
  to: string;
  valueWei: string;
  data: string;
}

/** The chain evidence of a submitted launch (each lane's resource schema ChainEvidence). */
export interface LaneChainEvidence {
  transactionHash: string;
  blockNumber: string;
  blockHash: string;
}

/** A router's stamp event of a launch intent, with the transaction that emitted it. */
export interface LaneStamp {
  transaction: ObservedTransaction;
}

/** What a lane's tracker reads of its chain, through both providers (BaseLaunchChain, MultiRoleLaunchChain). */
export interface LaneTrackedChain<Stamp extends LaneStamp> {
  /** The latest block both providers have reached (the lower of their heads). */
  agreedHead(): Promise<{ number: bigint; timestamp: bigint }>;
  finalizedHeight(): Promise<bigint>;
  /** The hash both providers answer at a height (null: neither has a block); ProviderDisagreement when they differ. */
  agreedBlockHash(number: bigint): Promise<Hex | null>;
  /** The router's stamp events of every launch intent in [from, to] (one log query). */
  stampEvents(from: bigint, to: bigint): Promise<Array<LaneStampEvent<Stamp>>>;
  /** The transactions to the router mined in [from, to] (one block read per block). */
  routerTransactions(from: bigint, to: bigint): Promise<ObservedTransaction[]>;
  /** A mined transaction as both providers answer it (null: neither has it); ProviderDisagreement when they differ. */
  transaction(hash: Hex): Promise<ObservedTransaction | null>;
  receiptStatus(hash: Hex): Promise<'success' | 'reverted' | null>;
  /** A launched token's decimals(), or null when it does not answer one (readTokenDecimals). */
  tokenDecimals(token: Address): Promise<number | null>;
}

/** What a lane's tracker steps read and write. */
export interface LaneTrackerContext<Chain> {
  db: Db;
  chain: Chain;
  now: () => number;
  workerId: string;
  /**
   * Blocks read per poll at most, from the lowest search cursor on, for every launch at once: a poll after a long
   * outage stays bounded; a launch searched further waits until the range reaches its cursor.
   */
  maxBlocksPerPoll: number;
}

/** A lane as its tracker sees it: its tables, its terminal statuses and how its router's calls and stamps read. */
export interface TrackedLane<Row extends LaneTrackedRow, Stamp extends LaneStamp> {
  tables: LaneJobTables;
  terminalStatuses: readonly string[];
  /** The permit in the lane's router launch calldata, or null when the data is not such a call. */
  permitOf(data: Hex): LaunchPermit | null;
  /** The public output (public_output_json) of a stamp of the exact transaction. */
  outputOf(stamp: Stamp): Record<string, string>;
  /** The launched token's address in the public output of a submitted launch. */
  tokenAddressOf(row: Row): Address;
  /**
   * Writes the lane's finalized feed row of a launch and its public registry row (recordPublicLaunch, with the
   * token's decimals read before the transaction), inside the transaction that finalizes it.
   */
  writeFinalized(db: Db, row: Row, evidence: LaneChainEvidence, finalizedAt: string, decimals: number | null): void;
}

/**
 * Applies one observation: a status move with its columns, in one transaction, only while the launch still has the
 * status it was read with (moveLaneLaunch), the job following it (done when terminal) and `also` (the feed row)
 * written in the same transaction. Returns whether it moved.
 */
export function commitLaneTracked<Row extends LaneTrackedRow>(
  ctx: LaneTrackerContext<unknown>,
  lane: Pick<TrackedLane<Row, LaneStamp>, 'tables' | 'terminalStatuses'>,
  move: { row: Row; to: string; fields: LaneFields },
  also?: (db: Db, at: string) => void,
): boolean {
  const nowMs = ctx.now();
  const at = new Date(nowMs).toISOString();
  const { row, to, fields } = move;
  return ctx.db
    .transaction((): boolean => {
      const step = { launchId: row.launch_id, from: row.status, to, worker: ctx.workerId, at };
      if (!moveLaneLaunch(ctx.db, lane.tables, step, fields)) return false;
      settleLaneJob(ctx.db, lane.tables, row.launch_id, lane.terminalStatuses.includes(to) ? 'done' : 'idle', nowMs);
      also?.(ctx.db, at);
      return true;
    })
    .immediate();
}

/** Fails a tracked launch (to `failed`, or a lane's other terminal status) with a code, message and remediation. */
export function failLaneTracked<Row extends LaneTrackedRow>(
  ctx: LaneTrackerContext<unknown>,
  lane: Pick<TrackedLane<Row, LaneStamp>, 'tables' | 'terminalStatuses'>,
  row: Row,
  to: string,
  failure: { code: string; message: string; remediation: string },
): void {
  const failure_json = laneFailureJson(failure.code, failure.message, failure.remediation);
  commitLaneTracked(ctx, lane, { row, to, fields: { failure_json } });
}

/** Adds a finding code to a launch without moving it (once). */
export function addLaneTrackedFinding(
  ctx: LaneTrackerContext<unknown>,
  tables: LaneJobTables,
  row: LaneTrackedRow,
  code: string,
): void {
  const codes = JSON.parse(row.finding_codes_json) as string[];
  if (codes.includes(code)) return;
  row.finding_codes_json = JSON.stringify([...codes, code].slice(-64));
  statement(
    ctx.db,
    `UPDATE ${tables.launches} SET finding_codes_json = ?, updated_at = ? WHERE launch_id = ? AND status = ?`,
  ).run(row.finding_codes_json, new Date(ctx.now()).toISOString(), row.launch_id, row.status);
}

/** The exact wallet transaction bound to an authorized-onward launch. */
export function laneBoundTransactionOf(row: LaneTrackedRow): LaneWalletTransaction {
  if (!row.wallet_transaction_json) throw new Error(`launch ${row.launch_id} has no bound wallet transaction`);
  return JSON.parse(row.wallet_transaction_json) as LaneWalletTransaction;
}
