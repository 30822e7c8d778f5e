import type { Hex } from 'viem';
import type {
  CustomLaunchCreateRequestV4,
  CustomLaunchFailureV4,
  CustomLaunchFinalizedListV4,
  CustomLaunchResourceV4,
} from '../../../generated/types/service.ts';
import { ProviderDisagreement } from '../../chain/chain-failure.ts';
import {
  type LaunchObserver,
  launchIntentOfCalldata,
  type ObservedTransaction,
  permitCheckpointOf,
} from '../../chain/launch-observer.ts';
import { utf8Order } from '../../core/canonical-json.ts';
import { predictGraphTarget } from '../../core/create2.ts';
import { authorizedOnward } from '../../core/launch-statuses.ts';
import type { Db } from '../../store/db.ts';
import { statement } from '../../store/statements.ts';
import type { FindingCode } from '../launches/finding-codes.ts';
import { storedRequest } from '../launches/launch-resource.ts';
import { awaitPermitReissue, failUndecidedPermitReissues, launchFailure } from '../launches/permit-reissue.ts';
import { finalizedPublicLaunch, type PublicLaunchEntry, recordPublicLaunch } from '../public/public-launches.ts';
import { pollUntilStopped } from './poll-loop.ts';
import { classifyStepFailure, maxShownAttempt } from './retry-policy.ts';

type WalletTransaction = NonNullable<CustomLaunchResourceV4['walletTransaction']>;
type ChainEvidence = NonNullable<CustomLaunchResourceV4['chainEvidence']>;
type Finding = CustomLaunchResourceV4['findings'][number];
type FinalizedItem = CustomLaunchFinalizedListV4['launches'][number];
type FinalityPolicyRef = FinalizedItem['finalityPolicy'];
type Status = CustomLaunchResourceV4['status'];

/** Statuses the tracker follows: from the bound wallet transaction to finality. */
export const trackedStatuses: readonly Status[] = authorizedOnward.filter((status) => status !== 'finalized');

interface TrackedRow {
  launch_id: string;
  chain_id: string;
  profile: string;
  status: Status;
  launch_wallet: string;
  launch_intent_hash: string;
  wallet_transaction_json: string;
  chain_evidence_json: string | null;
  findings_json: string;
  tracked_to_block: number | null;
}

/** The exact comparison: chain, sender, router, value and calldata byte for byte (the V4 and the V3 lanes alike). */
export function isExactTransaction(
  tx: ObservedTransaction,
  exact: Pick<WalletTransaction, 'from' | 'to' | 'valueWei' | 'data'> & { chainId: string },
): boolean {
  return (
    tx.chainId === Number(exact.chainId) &&
    tx.from.toLowerCase() === exact.from.toLowerCase() &&
    tx.to?.toLowerCase() === exact.to.toLowerCase() &&
    tx.value === BigInt(exact.valueWei) &&
    tx.input.toLowerCase() === exact.data.toLowerCase()
  );
}

/**
 * The post-authorization lifecycle (the launch states of spec/schemas/custom-launch-resource.v4.schema.json):
 * `authorized` hands off to `awaiting_wallet_signature`; the exact wallet transaction is found through the router's
 * LaunchStamped event for the launch intent, and accepted only when chain, sender, router, value and calldata match
 * byte for byte (then `submitted` and, with its receipt at `latest`, `sequencer_soft_confirmed`); a different
 * transaction from the wallet to the router is never accepted (`wallet_action_required` with
 * WALLET_TRANSACTION_MISMATCH), one that stamped the intent instead fails the launch; `ethereum_posted` once both
 * providers' `safe` checkpoint covers the block, `finalized` once their `finalized` checkpoint does (the published
 * policy `l2-block <= finalized`), which also writes the public finalized feed row. Every poll re-reads the block
 * hash at the transaction's height: a mismatch is a reorg, and the launch waits for the exact transaction again.
 * The permit's expiry, by chain time, before the transaction was mined leaves the launch `wallet_action_required`
 * awaiting the controller's permit-reissue decision (permitReissue; no decision by its deadline fails it with
 * LAUNCH_PERMIT_EXPIRED). Progress is read only by polling; the service never signs or sends.
 */
export class LaunchTracker {
  constructor(
    private readonly deps: {
      db: Db;
      observer: LaunchObserver;
      finalityPolicy: FinalityPolicyRef;
      /** The bound chain deployment's graph factory: the token target's CREATE2 deployer. */
      graphFactory: Hex;
      now: () => number;
      workerId: string;
      /** The interval between polls (LIFECYCLE_TRACKER_POLL_MS), also the wait shown after a failed one. */
      pollMs: number;
      /** Blocks scanned per launch and poll at most, so one far-behind launch cannot stall the others. */
      maxBlocksPerPoll?: number;
      /** How long an expired permit's reissue decision is awaited (PERMIT_REISSUE_DECISION_WINDOW_MS). */
      permitReissueDecisionWindowMs: number;
    },
  ) {}

  /** One poll over every tracked launch. Resolves the number of launches examined. */
  async tick(): Promise<number> {
    failUndecidedPermitReissues(this.deps.db, this.deps.now(), this.deps.workerId);
    const rows = statement(
      this.deps.db,
      `SELECT launch_id, chain_id, profile, status, launch_wallet, launch_intent_hash,
         wallet_transaction_json, chain_evidence_json, findings_json, tracked_to_block
         FROM launches WHERE status IN (${trackedStatuses.map(() => '?').join(', ')})
         AND wallet_transaction_json IS NOT NULL ORDER BY seq`,
    ).all(...trackedStatuses) as TrackedRow[];
    if (rows.length === 0) return 0;
    let head: { number: bigint; timestamp: bigint };
    let checkpoints: { safe: bigint; finalized: bigint };
    try {
      head = await this.deps.observer.head();
      checkpoints = await this.deps.observer.checkpoints();
    } catch (err) {
      for (const row of rows) this.recordPoll(row, err);
      throw err;
    }
    // One launch's failed poll neither stops the others nor changes its status: it is shown and retried next poll.
    let failed: unknown;
    for (const row of rows) {
      try {
        await this.follow(row, head, checkpoints);
        this.recordPoll(row, null);
      } catch (err) {
        this.recordPoll(row, err);
        failed ??= err;
      }
    }
    if (failed !== undefined) throw failed;
    return rows.length;
  }

  /** Polls until stopped. Returns the stop function. */
  start(): () => Promise<void> {
    return pollUntilStopped('launch tracker poll', () => this.tick(), this.deps.pollMs);
  }

  /**
   * Shows a poll's outcome in the launch's lifecycleQueue without touching its status: a failed poll is `retry_wait`
   * with one more attempt, its transient code and the next poll's time (the tracker's fixed interval is its backoff);
   * a successful poll after failures clears them. The permit's expiry bounds the wait (checkExpiry).
   */
  private recordPoll(row: TrackedRow, err: unknown): void {
    const nowMs = this.deps.now();
    const at = new Date(nowMs).toISOString();
    if (err === null) {
      statement(
        this.deps.db,
        `UPDATE lifecycle_jobs SET state = 'idle', attempt = 0, next_attempt_ms = NULL, last_error_code = NULL,
           updated_at = ? WHERE launch_id = ? AND state = 'retry_wait'`,
      ).run(at, row.launch_id);
      return;
    }
    statement(
      this.deps.db,
      `UPDATE lifecycle_jobs SET state = 'retry_wait', attempt = MIN(attempt + 1, ?), next_attempt_ms = ?,
         last_error_code = ?, updated_at = ? WHERE launch_id = ?`,
    ).run(maxShownAttempt, nowMs + this.deps.pollMs, classifyStepFailure(err).code, at, row.launch_id);
  }

  private async follow(
    row: TrackedRow,
    head: { number: bigint; timestamp: bigint },
    checkpoints: { safe: bigint; finalized: bigint },
  ): Promise<void> {
    const exact = JSON.parse(row.wallet_transaction_json) as WalletTransaction;
    if (row.status === 'authorized') {
      this.commit(row, { through: ['awaiting_wallet_signature'] });
      row.status = 'awaiting_wallet_signature';
    }
    const evidence = row.chain_evidence_json ? (JSON.parse(row.chain_evidence_json) as ChainEvidence) : null;
    if (evidence?.blockNumber && evidence.blockHash) {
      await this.followMined(row, evidence, checkpoints);
      return;
    }
    await this.findTransaction(row, exact, head);
  }

  /** Before a mined exact transaction: the stamp event, then other wallet transactions, then the permit's expiry. */
  private async findTransaction(
    row: TrackedRow,
    exact: WalletTransaction,
    head: { number: bigint; timestamp: bigint },
  ): Promise<void> {
    const { observer } = this.deps;
    const from = BigInt(row.tracked_to_block ?? Number(permitCheckpointOf(exact.data as Hex))) + 1n;
    const last = from + BigInt(this.deps.maxBlocksPerPoll ?? 500) - 1n;
    const to = head.number < last ? head.number : last;
    if (from > to) return this.checkExpiry(row, exact, head);
    const intent = `0x${row.launch_intent_hash.replace(/^sha256:/, '')}` as Hex;
    for (const hash of await observer.stampTransactions(exact.to as Hex, intent, from, to)) {
      const tx = await observer.transaction(hash);
      if (!tx) continue;
      if (isExactTransaction(tx, exact)) {
        // Accepted only in the block both providers hold at its height: never on one provider's word.
        if ((await observer.agreedBlockHash(tx.blockNumber))?.toLowerCase() !== tx.blockHash.toLowerCase()) {
          throw new ProviderDisagreement(`providers disagree on the block holding ${tx.hash}`);
        }
        this.commit(row, {
          through: ['submitted', 'sequencer_soft_confirmed'],
          evidence: {
            transactionHash: tx.hash,
            blockNumber: String(tx.blockNumber),
            blockHash: tx.blockHash,
            finalizedAt: null,
          },
          trackedTo: to,
        });
        return;
      }
      this.fail(
        row,
        'LAUNCH_STAMPED_BY_OTHER_TRANSACTION',
        `Transaction ${hash} stamped this launch intent with other bytes than the exact wallet transaction; it is never accepted, and the intent cannot be stamped again.`,
      );
      return;
    }
    for (const listed of await observer.walletTransactionsTo(exact.from as Hex, exact.to as Hex, from, to)) {
      // Only a launch call naming this launch's intent concerns it; the wallet's other launches are their own.
      if (launchIntentOfCalldata(listed.input)?.toLowerCase() !== intent.toLowerCase()) continue;
      const tx = await this.confirmed(listed);
      if (isExactTransaction(tx, exact)) {
        // The exact bytes without a stamp event: the transaction reverted.
        const receipt = await observer.receiptStatus(tx.hash);
        if (receipt?.status === 'reverted') {
          this.fail(
            row,
            'WALLET_TRANSACTION_REVERTED',
            `The exact wallet transaction ${tx.hash} reverted in block ${tx.blockNumber}.`,
          );
          return;
        }
        continue;
      }
      this.addFinding(row, {
        code: 'WALLET_TRANSACTION_MISMATCH',
        severity: 'warning',
        targetId: null,
        message: `Transaction ${tx.hash} from the launch wallet to the router differs from the exact wallet transaction (chain, sender, router, value or calldata) and is never accepted.`,
      });
      if (row.status === 'awaiting_wallet_signature')
        this.commit(row, { through: ['wallet_action_required'], trackedTo: to });
    }
    this.commit(row, { trackedTo: to });
    // Only once every block up to the head was searched: after an outage the exact transaction may lie further on.
    if (to === head.number) await this.checkExpiry(row, exact, head);
  }

  /** A transaction one provider's block listed, as both providers answer it: one provider's word moves nothing. */
  private async confirmed(listed: ObservedTransaction): Promise<ObservedTransaction> {
    const tx = await this.deps.observer.transaction(listed.hash);
    if (tx?.blockHash.toLowerCase() !== listed.blockHash.toLowerCase() || tx.input !== listed.input) {
      throw new ProviderDisagreement(`providers disagree on transaction ${listed.hash}`);
    }
    return tx;
  }

  private async checkExpiry(row: TrackedRow, exact: WalletTransaction, head: { timestamp: bigint }): Promise<void> {
    if (head.timestamp * 1000n > BigInt(Date.parse(exact.permitExpiresAt))) {
      awaitPermitReissue(this.deps.db, {
        launchId: row.launch_id,
        from: row.status,
        expiredPermitExpiresAt: exact.permitExpiresAt,
        nowMs: this.deps.now(),
        windowMs: this.deps.permitReissueDecisionWindowMs,
        workerId: this.deps.workerId,
      });
    }
  }

  /** After the exact transaction is mined: reorg check, then the safe and finalized checkpoints. */
  private async followMined(
    row: TrackedRow,
    evidence: ChainEvidence,
    checkpoints: { safe: bigint; finalized: bigint },
  ): Promise<void> {
    const height = BigInt(evidence.blockNumber as string);
    // Providers that disagree throw (transient, the status holds); another hash or no block on both is a reorg.
    const hash = await this.deps.observer.agreedBlockHash(height);
    if (hash?.toLowerCase() !== evidence.blockHash?.toLowerCase()) {
      this.addFinding(row, {
        code: 'CHAIN_REORG_DETECTED',
        severity: 'warning',
        targetId: null,
        message: `Block ${height} no longer has hash ${evidence.blockHash}; the launch waits for the exact wallet transaction again.`,
      });
      this.commit(row, { through: ['awaiting_wallet_signature'], evidence: null, trackedTo: height - 1n });
      return;
    }
    if (checkpoints.finalized >= height) {
      // The stored request is read only here, once per launch, not on every poll.
      const request = storedRequest(this.deps.db, row.launch_id);
      const token = this.tokenAddress(row, request);
      // One chain read before the transaction: the commit never waits on a provider.
      const decimals = await this.deps.observer.tokenDecimals(token);
      const finalizedAt = new Date(this.deps.now()).toISOString();
      this.commit(row, {
        through: ['ethereum_posted', 'finalized'],
        evidence: { ...evidence, finalizedAt },
        feedItem: this.feedItem(row, request, evidence, finalizedAt),
        publicLaunch: finalizedPublicLaunch({
          lane: 'v4',
          launchId: row.launch_id,
          chainId: '4663',
          tokenAddress: token,
          projectMetadata: request.projectMetadata,
          decimals,
          evidence: { transactionHash: evidence.transactionHash, blockNumber: evidence.blockNumber as string },
          finalizedAt,
        }),
      });
    } else if (checkpoints.safe >= height && row.status !== 'ethereum_posted') {
      this.commit(row, { through: ['ethereum_posted'] });
    }
  }

  /** The token target's address as the router deployed it: CREATE2 through the graph factory (predictGraphTarget). */
  private tokenAddress(row: TrackedRow, request: CustomLaunchCreateRequestV4): Hex {
    const token = request.graphBundle.targets.find((t) => t.role === 'token');
    if (!token) throw new Error(`launch ${row.launch_id}: the graph has no token target`);
    const router = (JSON.parse(row.wallet_transaction_json) as WalletTransaction).to as Hex;
    return predictGraphTarget(
      this.deps.graphFactory,
      router,
      token.create2Salt as Hex | undefined,
      token.runtimeBytecode as Hex,
    );
  }

  private feedItem(
    row: TrackedRow,
    request: CustomLaunchCreateRequestV4,
    evidence: ChainEvidence,
    finalizedAt: string,
  ): FinalizedItem {
    const targets = request.graphBundle.targets.map((t) => t.targetId).sort(utf8Order);
    return {
      launchId: row.launch_id,
      chainId: '4663',
      caip2: 'eip155:4663',
      profile: row.profile as FinalizedItem['profile'],
      finalizedAt,
      transactionHash: evidence.transactionHash,
      blockNumber: evidence.blockNumber as string,
      blockHash: evidence.blockHash as string,
      router: (JSON.parse(row.wallet_transaction_json) as WalletTransaction).to,
      finalityPolicy: this.deps.finalityPolicy,
      // Source verification starts after finalized and never revises it: every component begins queued.
      sourceVerification: {
        status: 'queued',
        updatedAt: finalizedAt,
        components: targets.map((targetId) => ({
          targetId,
          status: 'queued',
          updatedAt: finalizedAt,
          nextAttemptAt: finalizedAt,
        })),
      },
    } as FinalizedItem;
  }

  private fail(row: TrackedRow, code: FindingCode, message: string): void {
    this.commit(row, {
      through: ['failed'],
      failure: launchFailure(code, message, new Date(this.deps.now()).toISOString()),
    });
  }

  private addFinding(row: TrackedRow, finding: Finding): void {
    const findings = JSON.parse(row.findings_json) as Finding[];
    if (findings.some((f) => f.code === finding.code && f.message === finding.message)) return;
    findings.push(finding);
    row.findings_json = JSON.stringify(findings.slice(-256));
    statement(this.deps.db, 'UPDATE launches SET findings_json = ?, updated_at = ? WHERE launch_id = ?').run(
      row.findings_json,
      new Date(this.deps.now()).toISOString(),
      row.launch_id,
    );
  }

  /**
   * Applies one observation in one transaction, only while the launch still has the status it was read with (so a
   * concurrent change is never overwritten); each status change is one row of launch_transitions.
   */
  private commit(
    row: TrackedRow,
    change: {
      /** The statuses to move through, in order; those the launch already has are skipped. */
      through?: Status[];
      evidence?: ChainEvidence | null;
      trackedTo?: bigint;
      failure?: CustomLaunchFailureV4;
      feedItem?: FinalizedItem;
      publicLaunch?: PublicLaunchEntry;
    },
  ): void {
    const { db } = this.deps;
    const at = new Date(this.deps.now()).toISOString();
    // Immediate: a read-then-write transaction cannot take the write lock from another process's writer later.
    db.transaction(() => {
      const current = statement(db, 'SELECT status FROM launches WHERE launch_id = ?').get(row.launch_id) as
        | { status: Status }
        | undefined;
      if (current?.status !== row.status) return;
      if (change.evidence !== undefined) {
        statement(db, 'UPDATE launches SET chain_evidence_json = ? WHERE launch_id = ?').run(
          change.evidence ? JSON.stringify(change.evidence) : null,
          row.launch_id,
        );
      }
      if (change.trackedTo !== undefined) {
        statement(db, 'UPDATE launches SET tracked_to_block = ? WHERE launch_id = ?').run(
          Number(change.trackedTo),
          row.launch_id,
        );
      }
      if (change.failure) {
        // The failure carries its own remediation; `remediation` belongs to action_required only.
        statement(db, 'UPDATE launches SET failure_json = ? WHERE launch_id = ?').run(
          JSON.stringify(change.failure),
          row.launch_id,
        );
      }
      let status = row.status;
      for (const next of change.through ?? []) {
        if (next === status) continue;
        statement(db, 'UPDATE launches SET status = ?, updated_at = ? WHERE launch_id = ?').run(
          next,
          at,
          row.launch_id,
        );
        statement(
          db,
          'INSERT INTO launch_transitions (launch_id, from_status, to_status, worker, at) VALUES (?, ?, ?, ?, ?)',
        ).run(row.launch_id, status, next, this.deps.workerId, at);
        status = next;
      }
      if (change.feedItem) {
        statement(
          db,
          `INSERT OR IGNORE INTO finalized_feed (chain_id, launch_id, item_json, finalized_at, verify_next_at)
           VALUES (?, ?, ?, ?, ?)`,
        ).run(
          row.chain_id,
          row.launch_id,
          JSON.stringify(change.feedItem),
          change.feedItem.finalizedAt,
          change.feedItem.finalizedAt,
        );
      }
      if (change.publicLaunch) recordPublicLaunch(db, change.publicLaunch);
      row.status = status;
    }).immediate();
  }
}
