import { type Hex, isAddress } from 'viem';
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
  type ObservedStamp,
  type ObservedTransaction,
  permitCheckpointOf,
} from '../../chain/launch-observer.ts';
import { utf8Order } from '../../core/canonical-json.ts';
import { predictGraphTarget } from '../../core/create2.ts';
import { authorizedOnward } from '../../core/launch-statuses.ts';
import { setTrackerLag } from '../../observability/metrics.ts';
import type { Db } from '../../store/db.ts';
import { statement } from '../../store/statements.ts';
import { oncePerKey } from '../lanes/tracker-poll.ts';
import type { FindingCode } from '../launches/finding-codes.ts';
import { storedRequest } from '../launches/launch-resource.ts';
import { awaitPermitReissue, failUndecidedPermitReissues, launchFailure } from '../launches/permit-reissue.ts';
import { finalizedPublicLaunch, type PublicLaunchEntry, recordPublicLaunch } from '../public/public-launches.ts';
import { logTransition } from '../transition-log.ts';
import { pollUntilStopped } from './poll-loop.ts';
import { classifyStepFailure, maxShownAttempt } from './retry-policy.ts';

type WalletTransaction = NonNullable<CustomLaunchResourceV4['walletTransaction']>;
type ChainEvidence = NonNullable<CustomLaunchResourceV4['chainEvidence']>;
type Finding = CustomLaunchResourceV4['findings'][number];
type FinalizedItem = CustomLaunchFinalizedListV4['launches'][number];
type FinalityPolicyRef = FinalizedItem['finalityPolicy'];
type Status = CustomLaunchResourceV4['status'];

type Head = { number: bigint; timestamp: bigint };
type Checkpoints = { safe: bigint; finalized: bigint };

/** A launch awaiting its exact transaction: searched in the blocks after `cursor` for what names `intent`. */
interface Search {
  row: TrackedRow;
  exact: WalletTransaction;
  cursor: bigint;
  /** The launch intent as router calldata and events carry it: 0x and lower-case hex. */
  intent: Hex;
}

/** What one poll read of blocks [from, to], for every launch searched: stamps and router calls by intent. */
interface BlockScan {
  from: bigint;
  to: bigint;
  stamps: Map<string, ObservedStamp[]>;
  calls: Map<string, ObservedTransaction[]>;
}

/**
 * Reads the blocks after the lowest search cursor up to the head, at most `maxBlocks` of them, once for every
 * launch searched: one log query for the routers' LaunchStamped events and one read of each block's transactions to
 * the routers, grouped by the launch intent they name (a router call names it in its calldata). Null when every
 * launch was searched to the head.
 */
async function pollBlocks(
  observer: LaunchObserver,
  searches: readonly Search[],
  head: Head,
  maxBlocks: number,
): Promise<BlockScan | null> {
  // The lowest cursor (bigint: no Math.min); launches searched further ignore what lies before their own cursor.
  let lowest = head.number;
  for (const search of searches) if (search.cursor < lowest) lowest = search.cursor;
  const from = lowest + 1n;
  const last = from + BigInt(maxBlocks) - 1n;
  const to = head.number < last ? head.number : last;
  if (from > to) return null;
  const routers = [...new Set(searches.map((s) => s.exact.to.toLowerCase() as Hex))];
  const stamps = new Map<string, ObservedStamp[]>();
  for (const stamp of await observer.routerStamps(routers, from, to)) {
    const intent = stamp.launchIntentHash.toLowerCase();
    stamps.set(intent, [...(stamps.get(intent) ?? []), stamp]);
  }
  const calls = new Map<string, ObservedTransaction[]>();
  for (const tx of await observer.routerTransactions(routers, from, to)) {
    const intent = launchIntentOfCalldata(tx.input)?.toLowerCase();
    if (intent) calls.set(intent, [...(calls.get(intent) ?? []), tx]);
  }
  return { from, to, stamps, calls };
}

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
      /**
       * Blocks read per poll at most, from the lowest search cursor on, for every launch at once: a poll after a long
       * outage stays bounded; a launch searched further waits until the range reaches its cursor.
       */
      maxBlocksPerPoll?: number;
      /** How long an expired permit's reissue decision is awaited (PERMIT_REISSUE_DECISION_WINDOW_MS). */
      permitReissueDecisionWindowMs: number;
    },
  ) {}

  /**
   * One poll over every tracked launch. Resolves the number of launches examined. The chain is read once for all of
   * them: the head and the checkpoints, then the blocks after the lowest search cursor (one log query for the
   * routers' stamps, one read per block), each launch handed only what names it (pollBlocks); per-launch reads only
   * for the launches those blocks name, and each mined launch's block hash read once per height.
   */
  async tick(): Promise<number> {
    failUndecidedPermitReissues(this.deps.db, this.deps.now(), this.deps.workerId);
    const rows = statement(
      this.deps.db,
      `SELECT launch_id, chain_id, profile, status, launch_wallet, launch_intent_hash,
         wallet_transaction_json, chain_evidence_json, findings_json, tracked_to_block
         FROM launches WHERE status IN (${trackedStatuses.map(() => '?').join(', ')})
         AND wallet_transaction_json IS NOT NULL ORDER BY seq`,
    ).all(...trackedStatuses) as TrackedRow[];
    if (rows.length === 0) {
      setTrackerLag('v4', '4663', 0n);
      return 0;
    }
    let head: Head;
    let checkpoints: Checkpoints;
    try {
      head = await this.deps.observer.head();
      checkpoints = await this.deps.observer.checkpoints();
    } catch (err) {
      this.recordPolls(rows.map((row) => [row, err]));
      throw err;
    }
    // One launch's failed poll neither stops the others nor changes its status: it is shown and retried next poll.
    const failures = new Map<TrackedRow, unknown>();
    const { searches, mined } = this.sortRows(rows, failures);
    const hashAt = oncePerKey((height: bigint) => this.deps.observer.agreedBlockHash(height));
    setTrackerLag('v4', '4663', await this.followSearches(searches, head, hashAt, failures));
    for (const { row, evidence } of mined) {
      await this.followMined(row, evidence, checkpoints, hashAt).catch((err: unknown) => failures.set(row, err));
    }
    this.recordPolls(rows.map((row) => [row, failures.has(row) ? failures.get(row) : null]));
    const [failed] = failures.values();
    if (failures.size > 0) throw failed;
    return rows.length;
  }

  /** Polls until stopped. Returns the stop function, after which this process reports no lag. */
  start(): () => Promise<void> {
    const stop = pollUntilStopped('launch tracker poll', () => this.tick(), this.deps.pollMs);
    return async () => {
      await stop();
      setTrackerLag('v4', '4663', null);
    };
  }

  /**
   * Hands an `authorized` launch off to its wallet, then parts the launches: those still searched for their exact
   * transaction (with their search cursor and intent) and those whose transaction is mined. A row that cannot be read
   * is a failure of its own.
   */
  private sortRows(
    rows: TrackedRow[],
    failures: Map<TrackedRow, unknown>,
  ): { searches: Search[]; mined: Array<{ row: TrackedRow; evidence: ChainEvidence }> } {
    const searches: Search[] = [];
    const mined: Array<{ row: TrackedRow; evidence: ChainEvidence }> = [];
    for (const row of rows) {
      try {
        const exact = JSON.parse(row.wallet_transaction_json) as WalletTransaction;
        if (row.status === 'authorized') {
          this.commit(row, { through: ['awaiting_wallet_signature'] });
          row.status = 'awaiting_wallet_signature';
        }
        const evidence = row.chain_evidence_json ? (JSON.parse(row.chain_evidence_json) as ChainEvidence) : null;
        if (evidence?.blockNumber && evidence.blockHash) {
          mined.push({ row, evidence });
          continue;
        }
        if (!isAddress(exact.to, { strict: false }))
          throw new Error(`launch ${row.launch_id}: the router is no address`);
        searches.push({
          row,
          exact,
          cursor: BigInt(row.tracked_to_block ?? Number(permitCheckpointOf(exact.data as Hex))),
          intent: `0x${row.launch_intent_hash.replace(/^sha256:/, '')}`.toLowerCase() as Hex,
        });
      } catch (err) {
        failures.set(row, err);
      }
    }
    return { searches, mined };
  }

  /**
   * The search of every launch awaiting its exact transaction over one block range read once (pollBlocks): each
   * launch is handed what names it; the launches nothing names only move their cursor on (in one transaction), and
   * a launch whose search reached the head has its permit's expiry checked after that. Resolves the tracker's lag:
   * the blocks between the head and the last one searched for the launch searched least far.
   */
  private async followSearches(
    searches: Search[],
    head: Head,
    hashAt: (height: bigint) => Promise<Hex | null>,
    failures: Map<TrackedRow, unknown>,
  ): Promise<bigint> {
    if (searches.length === 0) return 0n;
    let scan: BlockScan | null;
    try {
      scan = await pollBlocks(this.deps.observer, searches, head, this.deps.maxBlocksPerPoll ?? 500);
    } catch (err) {
      for (const { row } of searches) failures.set(row, err);
      // Nothing was read: the launch searched least far stays where it was (bigint: no Math.min).
      let lowest = head.number;
      for (const { cursor } of searches) if (cursor < lowest) lowest = cursor;
      return head.number - lowest;
    }
    const advanced: Array<{ row: TrackedRow; to: bigint }> = [];
    const atHead: Search[] = [];
    for (const search of searches) {
      // A launch already searched past what this poll read waits; one searched to the head has only its expiry.
      if (scan === null || search.cursor >= scan.to) {
        if (search.cursor >= head.number) atHead.push(search);
        continue;
      }
      try {
        if (await this.findTransaction(search, scan, hashAt)) continue;
        advanced.push({ row: search.row, to: scan.to });
        if (scan.to === head.number) atHead.push(search);
      } catch (err) {
        failures.set(search.row, err);
      }
    }
    this.advanceSearches(advanced);
    // Only once every block up to the head was searched: after an outage the exact transaction may lie further on.
    for (const search of atHead) {
      if (failures.has(search.row)) continue;
      try {
        this.checkExpiry(search.row, search.exact, head);
      } catch (err) {
        failures.set(search.row, err);
      }
    }
    return scan === null ? 0n : head.number - scan.to;
  }

  /**
   * Before a mined exact transaction: the stamp event of the launch's intent among the blocks read, then the
   * wallet's other launch calls naming it. Resolves true when the launch was stamped (accepted or failed): its search
   * is over.
   */
  private async findTransaction(
    search: Search,
    scan: BlockScan,
    hashAt: (height: bigint) => Promise<Hex | null>,
  ): Promise<boolean> {
    const { row, exact, cursor, intent } = search;
    const router = exact.to.toLowerCase();
    const after = (block: bigint) => block > cursor;
    for (const stamp of scan.stamps.get(intent) ?? []) {
      if (stamp.router.toLowerCase() !== router || !after(stamp.blockNumber)) continue;
      const tx = await this.deps.observer.transaction(stamp.transactionHash);
      if (!tx) continue;
      if (isExactTransaction(tx, exact)) {
        // Accepted only in the block both providers hold at its height: never on one provider's word.
        if ((await hashAt(tx.blockNumber))?.toLowerCase() !== tx.blockHash.toLowerCase()) {
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
          trackedTo: scan.to,
        });
        return true;
      }
      this.fail(
        row,
        'LAUNCH_STAMPED_BY_OTHER_TRANSACTION',
        `Transaction ${stamp.transactionHash} stamped this launch intent with other bytes than the exact wallet transaction; it is never accepted, and the intent cannot be stamped again.`,
      );
      return true;
    }
    const wallet = exact.from.toLowerCase();
    for (const listed of scan.calls.get(intent) ?? []) {
      // Only a launch call naming this launch's intent concerns it; the wallet's other launches are their own.
      if (listed.from.toLowerCase() !== wallet || listed.to?.toLowerCase() !== router || !after(listed.blockNumber)) {
        continue;
      }
      if (await this.otherCall(row, exact, listed, scan.to)) return true;
    }
    return false;
  }

  /**
   * A launch call from the wallet to the router naming the launch's intent, not stamped: the exact bytes reverted
   * fail the launch (true); other bytes are never accepted (WALLET_TRANSACTION_MISMATCH, `wallet_action_required`).
   */
  private async otherCall(
    row: TrackedRow,
    exact: WalletTransaction,
    listed: ObservedTransaction,
    to: bigint,
  ): Promise<boolean> {
    const tx = await this.confirmed(listed);
    if (isExactTransaction(tx, exact)) {
      // The exact bytes without a stamp event: the transaction reverted.
      const receipt = await this.deps.observer.receiptStatus(tx.hash);
      if (receipt?.status !== 'reverted') return false;
      this.fail(
        row,
        'WALLET_TRANSACTION_REVERTED',
        `The exact wallet transaction ${tx.hash} reverted in block ${tx.blockNumber}.`,
      );
      return true;
    }
    this.addFinding(row, {
      code: 'WALLET_TRANSACTION_MISMATCH',
      severity: 'warning',
      targetId: null,
      message: `Transaction ${tx.hash} from the launch wallet to the router differs from the exact wallet transaction (chain, sender, router, value or calldata) and is never accepted.`,
    });
    if (row.status === 'awaiting_wallet_signature')
      this.commit(row, { through: ['wallet_action_required'], trackedTo: to });
    return false;
  }

  /**
   * Moves the search cursor of every launch in `advanced` on, in one transaction, each only while the launch still
   * has the status it was read with (as commit does).
   */
  private advanceSearches(advanced: Array<{ row: TrackedRow; to: bigint }>): void {
    if (advanced.length === 0) return;
    const { db } = this.deps;
    const advance = statement(db, 'UPDATE launches SET tracked_to_block = ? WHERE launch_id = ? AND status = ?');
    db.transaction(() => {
      for (const { row, to } of advanced) advance.run(Number(to), row.launch_id, row.status);
    }).immediate();
  }

  /**
   * Shows each launch's poll outcome in its lifecycleQueue without touching its status, all in one transaction: a
   * failed poll is `retry_wait` with one more attempt, its transient code and the next poll's time (the tracker's
   * fixed interval is its backoff); a successful poll after failures clears them. The permit's expiry bounds the wait
   * (checkExpiry).
   */
  private recordPolls(outcomes: Array<[TrackedRow, unknown]>): void {
    const { db } = this.deps;
    const nowMs = this.deps.now();
    const at = new Date(nowMs).toISOString();
    const cleared = statement(
      db,
      `UPDATE lifecycle_jobs SET state = 'idle', attempt = 0, next_attempt_ms = NULL, last_error_code = NULL,
         updated_at = ? WHERE launch_id = ? AND state = 'retry_wait'`,
    );
    const retrying = statement(
      db,
      `UPDATE lifecycle_jobs SET state = 'retry_wait', attempt = MIN(attempt + 1, ?), next_attempt_ms = ?,
         last_error_code = ?, updated_at = ? WHERE launch_id = ?`,
    );
    db.transaction(() => {
      for (const [row, err] of outcomes) {
        if (err === null) cleared.run(at, row.launch_id);
        else retrying.run(maxShownAttempt, nowMs + this.deps.pollMs, classifyStepFailure(err).code, at, row.launch_id);
      }
    }).immediate();
  }

  /** A transaction one provider's block listed, as both providers answer it: one provider's word moves nothing. */
  private async confirmed(listed: ObservedTransaction): Promise<ObservedTransaction> {
    const tx = await this.deps.observer.transaction(listed.hash);
    if (tx?.blockHash.toLowerCase() !== listed.blockHash.toLowerCase() || tx.input !== listed.input) {
      throw new ProviderDisagreement(`providers disagree on transaction ${listed.hash}`);
    }
    return tx;
  }

  private checkExpiry(row: TrackedRow, exact: WalletTransaction, head: { timestamp: bigint }): void {
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
    checkpoints: Checkpoints,
    hashAt: (height: bigint) => Promise<Hex | null>,
  ): Promise<void> {
    const height = BigInt(evidence.blockNumber as string);
    // Providers that disagree throw (transient, the status holds); another hash or no block on both is a reorg.
    const hash = await hashAt(height);
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
        logTransition('launch_transitions', {
          launchId: row.launch_id,
          from: status,
          to: next,
          worker: this.deps.workerId,
        });
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
