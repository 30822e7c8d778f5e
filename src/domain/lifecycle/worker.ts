import type {
  CustomLaunchCreateRequestV4,
  CustomLaunchFailureV4,
  CustomLaunchRemediationV4,
  CustomLaunchWalletTransactionV4,
} from '../../../generated/types/service.ts';
import { redactKeys } from '../../auth/keys.ts';
import { describeRevert, revertDataOf } from '../../chain/revert.ts';
import type { Config } from '../../config.ts';
import { logger } from '../../observability/logger.ts';
import { countLifecycleRetry } from '../../observability/metrics.ts';
import type { SolidityAst, SolidityBuildSettings } from '../../solidity/compile-contracts.ts';
import { type Db, immediateIfFree } from '../../store/db.ts';
import { groupCommitOf } from '../../store/group-commit.ts';
import { statement } from '../../store/statements.ts';
import { type AdmissionConfig, type AdmissionFinding, evaluateAdmission } from '../admission/evaluate.ts';
import { type FindingCode, findingCodes } from '../launches/finding-codes.ts';
import { fundingNonceSeenInOtherRequest } from '../launches/funding-nonce-reuse.ts';
import { findSourceSelfdestructs } from '../static-baseline/source-selfdestruct.ts';
import { logTransition } from '../transition-log.ts';
import type { LaunchAuthorizer } from './chain-gates.ts';
import { ClaimedJobs, claimBatchSize, dueJobs, type LeasedJob } from './job-claims.ts';
import { pollUntilStopped } from './poll-loop.ts';
import { backoffDelayMs, classifyStepFailure, maxShownAttempt, QuoteUnavailable } from './retry-policy.ts';
import { heldSources } from './source-verifier.ts';

/** What a lifecycle step concluded for one launch. */
type Outcome =
  | { kind: 'action_required'; findings: AdmissionFinding[] }
  | { kind: 'awaiting_chain'; findings: AdmissionFinding[]; sourcesMissing: boolean }
  | { kind: 'awaiting_sources'; findings: AdmissionFinding[] }
  | { kind: 'authorized'; findings: AdmissionFinding[]; walletTransaction: CustomLaunchWalletTransactionV4 };

interface ClaimedJob extends LeasedJob {
  /** The validation deadline (epoch ms): a transient failure after it fails the launch. */
  deadlineMs: number;
}

const chainNotConfigured: FindingCode = 'CHAIN_NOT_CONFIGURED';
const sourceFilesPending: FindingCode = 'SOURCE_FILES_PENDING';
const sourceRuleCacheSize = 256;
const deadlinePassed: FindingCode = 'LIFECYCLE_VALIDATION_DEADLINE_PASSED';

/**
 * The durable lifecycle worker. Jobs live in SQLite (`lifecycle_jobs`); a worker claims up to claimBatchSize due jobs
 * under their leases in one transaction (moving each `received` launch to `validating`; ClaimedJobs runs them one a
 * tick and renews the leases of those still waiting), evaluates each outside any transaction, and commits
 * the outcome only while it still holds the lease, so a process killed mid-step loses nothing and a resumed step is
 * never applied twice (every status change is one row of `launch_transitions`). A failed step is classified
 * (classifyStepFailure): a transient failure keeps the status and is retried with capped, jittered exponential backoff
 * (shown in lifecycleQueue) until the validation deadline stored with the job, after which the launch fails with
 * LIFECYCLE_VALIDATION_DEADLINE_PASSED; a definitive one (an EVM revert) gives `action_required`.
 * Outcomes, in this order: a chain-free blocking finding → `action_required` with the findings and a remediation
 * (without waiting for the sources); with the source rule configured, once every sourceBundleManifest file is held,
 * a source SELFDESTRUCT call → `action_required`; without a configured chain the launch waits in `validating` with
 * lastErrorCode CHAIN_NOT_CONFIGURED (no permit could be issued, so the sources gate nothing yet); with chain gates
 * and a manifest file still missing it waits in `validating` with SOURCE_FILES_PENDING (the permit waits for the
 * sources); otherwise the chain gates run (LaunchAuthorizer: deployment binding, hook probes, external references,
 * the permit and the exact router simulation) → `authorized` with the exact wallet transaction, or `action_required`.
 * Both waits leave the job idle, outside the validation deadline, until the delivery that completes the sources
 * wakes it (wakeBeforePermit).
 * The launch's states received, validating, action_required and failed, and lifecycleQueue (bounded worker
 * scheduling and retry state that never changes launch status): spec/schemas/custom-launch-resource.v4.schema.json
 * LifecycleQueue; spec/openapi/paths/v4-custom-launch.yaml getCustomLaunchV4.
 */
export class LifecycleWorker {
  /** The source rule's findings per launch, once decided over the complete sources (oldest dropped first). */
  private readonly sourceRuleDecided = new Map<string, AdmissionFinding[]>();
  private readonly claimed: ClaimedJobs<ClaimedJob>;

  constructor(
    private readonly deps: {
      db: Db;
      lifecycle: Config['lifecycle'];
      admission: AdmissionConfig;
      now: () => number;
      workerId: string;
      /** Fresh USD 1 minimum for the permit-stage check; null when no fresh quote exists. */
      minimumInitialBuyWei?: () => Promise<bigint | null>;
      /** The chain gates; null when no chain is configured. */
      authorizer?: LaunchAuthorizer | null;
      /** solc's analysed ASTs of a closed source set, for the source SELFDESTRUCT rule; absent: the rule is off. */
      sourceAsts?: (
        sources: Record<string, string>,
        settings: SolidityBuildSettings,
      ) => Promise<Record<string, SolidityAst>>;
      /** The backoff's jitter source, in [0, 1) (Math.random unless a test fixes it). */
      random?: () => number;
    },
  ) {
    this.claimed = new ClaimedJobs(deps.db, 'lifecycle_jobs', {
      workerId: deps.workerId,
      leaseMs: deps.lifecycle.leaseMs,
    });
  }

  /** Runs one lifecycle step of a claimed job, claiming a batch when none waits. Resolves false when none was due. */
  async tick(): Promise<boolean> {
    const job = this.claimed.next(this.deps.now(), () => this.claimDue(claimBatchSize));
    if (!job) return false;
    if (this.deps.lifecycle.stepDelayMs > 0)
      await new Promise((resolve) => setTimeout(resolve, this.deps.lifecycle.stepDelayMs));
    let outcome: Outcome;
    try {
      const minimum = (await this.deps.minimumInitialBuyWei?.()) ?? null;
      outcome = await this.evaluate(job.launchId, minimum);
    } catch (err) {
      const failure = classifyStepFailure(err);
      if (failure.kind === 'definitive') {
        // The decoded reason only: an error's own text can carry a provider URL, which may hold its API key.
        const finding: AdmissionFinding = {
          code: failure.code,
          severity: 'blocking',
          targetId: null,
          message: `A call of the lifecycle step reverted: ${describeRevert(revertDataOf(err))}.`,
        };
        await this.complete(job, { kind: 'action_required', findings: [finding] });
      } else {
        this.retryOrFail(job, failure.code, err);
      }
      return true;
    }
    await this.complete(job, outcome);
    return true;
  }

  /** Runs jobs until stopped, polling when idle. Returns the stop function, which releases the unstarted jobs. */
  start(): () => Promise<void> {
    const stop = pollUntilStopped(
      'lifecycle tick',
      () => this.tick(),
      this.deps.lifecycle.pollMs,
      (worked) => worked === true,
    );
    return async () => {
      await stop();
      this.claimed.release(this.deps.now());
    };
  }

  /** Claims up to `limit` due jobs in one immediate transaction; none while another connection writes. */
  private claimDue(limit: number): ClaimedJob[] {
    const { db, now, workerId, lifecycle } = this.deps;
    const claimed = immediateIfFree(db, (): ClaimedJob[] => {
      const nowMs = now();
      const at = new Date(nowMs).toISOString();
      const leaseExpiresMs = nowMs + lifecycle.leaseMs;
      const lease = statement(
        db,
        `UPDATE lifecycle_jobs SET state = 'running', attempt = ?, lease_owner = ?, lease_expires_ms = ?,
             next_attempt_ms = NULL, updated_at = ? WHERE launch_id = ?`,
      );
      // Only launches before authorized: from there the tracker owns the job's retry state.
      const due = dueJobs<{ deadline_ms: number | null; created_at: string }>(
        db,
        { jobs: 'lifecycle_jobs', launches: 'launches' },
        ['received', 'validating'],
        { columns: 'j.deadline_ms, l.created_at', nowMs, limit },
      );
      return due.map((row): ClaimedJob => {
        const attempt = Math.min(row.attempt + 1, maxShownAttempt);
        lease.run(attempt, workerId, leaseExpiresMs, at, row.launch_id);
        this.transition(row.launch_id, 'received', 'validating', at);
        // Every job is created with its deadline; the configured one covers a row written without it.
        const deadlineMs = row.deadline_ms ?? Date.parse(row.created_at) + lifecycle.validationDeadlineMs;
        return { launchId: row.launch_id, attempt, priorAttempt: row.attempt, leaseExpiresMs, deadlineMs };
      });
    });
    return claimed ?? [];
  }

  /** The chain-free gates at the permit stage (a build-only plan blocks here), then the chain gates. */
  private async evaluate(launchId: string, minimumInitialBuyWei: bigint | null): Promise<Outcome> {
    const row = statement(this.deps.db, 'SELECT request_bytes FROM launches WHERE launch_id = ?').get(launchId) as
      | { request_bytes: Buffer }
      | undefined;
    if (!row) throw new Error(`launch ${launchId} has no stored request`);
    const request = JSON.parse(row.request_bytes.toString('utf8')) as CustomLaunchCreateRequestV4;
    const { authorizer } = this.deps;
    const { findings } = evaluateAdmission(request, this.deps.admission, 'permit', {
      minimumInitialBuyWei,
      chainBindsExternalReferences: Boolean(authorizer),
      fundingNonceConflict: fundingNonceSeenInOtherRequest(this.deps.db, request),
    });
    const sources = await this.sourceRule(launchId, request);
    findings.push(...sources.findings);
    if (findings.some((f) => f.severity === 'blocking')) return { kind: 'action_required', findings };
    if (!authorizer) return { kind: 'awaiting_chain', findings, sourcesMissing: sources.missing };
    if (sources.missing) return { kind: 'awaiting_sources', findings };
    if (request.profile === '4.1.0' && request.fundingPlan.mode !== 'build-only' && minimumInitialBuyWei === null) {
      // No permit without a fresh quote (never a stale value): a transient step failure.
      throw new QuoteUnavailable('no fresh native/USD quote for the USD 1 initial-buy check');
    }
    const chain = await authorizer.authorize(request);
    // The chain probes decided what the chain-free gates could only mark as needing evidence.
    const merged = [...findings.filter((f) => f.code !== 'CALLBACK_GUARD_UNDECIDED'), ...chain.findings];
    return chain.kind === 'authorized'
      ? { kind: 'authorized', findings: merged, walletTransaction: chain.walletTransaction }
      : { kind: 'action_required', findings: merged };
  }

  /**
   * The source SELFDESTRUCT hard block (SOURCE_SELFDESTRUCT), decided over the delivered sources: only once every
   * file of the sourceBundleManifest is held (`missing` true before: the permit waits for them), and only when the
   * pinned solc analyses them (sources that do not analyse leave the rule undecided here; source verification reports
   * them). Each call is a blocking finding on the target whose verificationBundle entry names its file, else on no
   * target. Without the rule configured nothing is missing.
   */
  private async sourceRule(
    launchId: string,
    request: CustomLaunchCreateRequestV4,
  ): Promise<{ missing: boolean; findings: AdmissionFinding[] }> {
    const { sourceAsts } = this.deps;
    if (!sourceAsts) return { missing: false, findings: [] };
    const decided = this.sourceRuleDecided.get(launchId);
    if (decided) return { missing: false, findings: decided };
    const { sources, missing } = heldSources(this.deps.db, launchId, request.sourceBundleManifest);
    if (missing.length > 0) return { missing: true, findings: [] };
    const asts = await sourceAsts(sources, request.sourceDescriptor).catch(() => null);
    const findings = !asts
      ? []
      : findSourceSelfdestructs(asts, sources).map(
          (call): AdmissionFinding => ({
            code: 'SOURCE_SELFDESTRUCT',
            severity: 'blocking',
            targetId: request.verificationBundle.targets.find((t) => t.sourcePath === call.path)?.targetId ?? null,
            message: `selfdestruct(...) is called in the source at ${call.path}:${call.line}:${call.column}.`,
          }),
        );
    // The held files are bound by their hashes and solc is pinned, so the outcome never changes: a step retried
    // after a transient chain failure does not run solc again.
    this.sourceRuleDecided.set(launchId, findings);
    if (this.sourceRuleDecided.size > sourceRuleCacheSize) {
      this.sourceRuleDecided.delete(this.sourceRuleDecided.keys().next().value as string);
    }
    return { missing: false, findings };
  }

  private complete(job: ClaimedJob, outcome: Outcome): Promise<void> {
    const { db, now } = this.deps;
    // Immediate: a deferred transaction that read the lease could not take the write lock while another process
    // writes (SQLITE_BUSY at once, no busy wait), and the step would run again after its lease. One savepoint of the
    // group commit: it shares the synchronous=FULL commit of the creates of the same turn (src/store/group-commit.ts).
    return groupCommitOf(db).run(() => {
      if (!this.holdsLease(job.launchId)) return;
      const at = new Date(now()).toISOString();
      const blocking = [...new Set(outcome.findings.filter((f) => f.severity === 'blocking').map((f) => f.code))];
      const remediation: CustomLaunchRemediationV4 | null =
        outcome.kind === 'action_required'
          ? {
              findingCodes: blocking,
              action: `${blocking.map((c) => findingCodes[c].obligation).join(' ')} Rebuild and submit a new immutable request.`,
              newRequestRequired: true,
            }
          : null;
      statement(
        db,
        `UPDATE launches SET findings_json = ?, remediation_json = ?, wallet_transaction_json = ?, updated_at = ?
           WHERE launch_id = ?`,
      ).run(
        JSON.stringify(outcome.findings.slice(0, 256)),
        remediation ? JSON.stringify(remediation) : null,
        outcome.kind === 'authorized' ? JSON.stringify(outcome.walletTransaction) : null,
        at,
        job.launchId,
      );
      if (outcome.kind === 'action_required') this.transition(job.launchId, 'validating', 'action_required', at);
      if (outcome.kind === 'authorized') this.transition(job.launchId, 'validating', 'authorized', at);
      const waitCode =
        outcome.kind === 'awaiting_chain'
          ? chainNotConfigured
          : outcome.kind === 'awaiting_sources'
            ? sourceFilesPending
            : null;
      // The last file may have arrived while the step ran (its wake saw a running job, not an idle one): this
      // commit and that delivery are both immediate transactions, so one of the two sees the other and schedules.
      const sourcesArrived =
        (outcome.kind === 'awaiting_sources' || (outcome.kind === 'awaiting_chain' && outcome.sourcesMissing)) &&
        sourcesComplete(db, job.launchId);
      // From authorized on, attempt counts the tracker's failed polls: the new stage starts at 0.
      statement(
        db,
        `UPDATE lifecycle_jobs SET state = ?, next_attempt_ms = ?, lease_owner = NULL, lease_expires_ms = NULL,
           last_error_code = ?, attempt = CASE WHEN ? THEN 0 ELSE attempt END, updated_at = ? WHERE launch_id = ?`,
      ).run(
        sourcesArrived ? 'scheduled' : 'idle',
        sourcesArrived ? now() : null,
        waitCode,
        outcome.kind === 'authorized' ? 1 : 0,
        at,
        job.launchId,
      );
    });
  }

  /** A transient failure: the next attempt (never after the deadline), or, once the deadline has passed, `failed`. */
  private retryOrFail(job: ClaimedJob, code: FindingCode, err: unknown): void {
    const { db, now, lifecycle } = this.deps;
    logger.error(
      { launchId: job.launchId, attempt: job.attempt, code, detail: redactKeys(String(err)).slice(0, 500) },
      'lifecycle step failed',
    );
    db.transaction(() => {
      if (!this.holdsLease(job.launchId)) return;
      const nowMs = now();
      const at = new Date(nowMs).toISOString();
      if (nowMs < job.deadlineMs) {
        const delay = backoffDelayMs(
          job.attempt,
          { baseMs: lifecycle.backoffBaseMs, maxMs: lifecycle.backoffMaxMs },
          this.deps.random,
        );
        statement(
          db,
          `UPDATE lifecycle_jobs SET state = 'retry_wait', next_attempt_ms = ?, lease_owner = NULL, lease_expires_ms = NULL,
             last_error_code = ?, updated_at = ? WHERE launch_id = ?`,
        ).run(Math.min(nowMs + delay, job.deadlineMs), code, at, job.launchId);
        countLifecycleRetry('v4', code);
        return;
      }
      const deadline = new Date(job.deadlineMs).toISOString();
      const failure: CustomLaunchFailureV4 = {
        code: deadlinePassed,
        message: `Validation still failed transiently (${code}) after its deadline ${deadline}, on attempt ${job.attempt}; the launch cannot proceed.`,
        failedAt: at,
        remediation: {
          findingCodes: [deadlinePassed],
          action: `${findingCodes[deadlinePassed].obligation} Quote the launchId to support.`,
          newRequestRequired: true,
        },
      };
      statement(db, 'UPDATE launches SET failure_json = ?, updated_at = ? WHERE launch_id = ?').run(
        JSON.stringify(failure),
        at,
        job.launchId,
      );
      this.transition(job.launchId, 'validating', 'failed', at);
      statement(
        db,
        `UPDATE lifecycle_jobs SET state = 'exhausted', lease_owner = NULL, lease_expires_ms = NULL,
           last_error_code = ?, updated_at = ? WHERE launch_id = ?`,
      ).run(code, at, job.launchId);
    }).immediate();
  }

  private holdsLease(launchId: string): boolean {
    const row = statement(
      this.deps.db,
      "SELECT 1 AS held FROM lifecycle_jobs WHERE launch_id = ? AND state = 'running' AND lease_owner = ?",
    ).get(launchId, this.deps.workerId);
    return row !== undefined;
  }

  /** Moves a launch from one status to the next, recording the transition; a no-op if it is not in `from`. */
  private transition(launchId: string, from: string, to: string, at: string): void {
    const changed = statement(
      this.deps.db,
      'UPDATE launches SET status = ?, updated_at = ? WHERE launch_id = ? AND status = ?',
    ).run(to, at, launchId, from).changes;
    if (changed === 1) {
      statement(
        this.deps.db,
        'INSERT INTO launch_transitions (launch_id, from_status, to_status, worker, at) VALUES (?, ?, ?, ?, ?)',
      ).run(launchId, from, to, this.deps.workerId, at);
      logTransition('launch_transitions', { launchId, from, to, worker: this.deps.workerId });
    }
  }
}

/** Whether the server holds every file of the launch's sourceBundleManifest. */
function sourcesComplete(db: Db, launchId: string): boolean {
  const row = statement(db, 'SELECT request_bytes FROM launches WHERE launch_id = ?').get(launchId) as
    | { request_bytes: Buffer }
    | undefined;
  if (!row) return false;
  const request = JSON.parse(row.request_bytes.toString('utf8')) as CustomLaunchCreateRequestV4;
  return heldSources(db, launchId, request.sourceBundleManifest).missing.length === 0;
}

/**
 * Brings a launch that waits before its permit back to the lifecycle worker (the delivery that completes its
 * sourceBundleManifest), so the source SELFDESTRUCT rule and then the chain gates run over the sources: only a launch
 * still `received` or `validating` whose job is idle (SOURCE_FILES_PENDING or CHAIN_NOT_CONFIGURED); a due job reads
 * the sources anyway, a running one is rescheduled by its own commit, and a launch past its permit is not reopened.
 * The idle wait was the controller's, not the lifecycle's: the validation deadline moves on by the time the job
 * waited idle (LifecycleQueue.deadlineAt in spec/schemas/custom-launch-resource.v4.schema.json).
 */
export function wakeBeforePermit(db: Db, launchId: string, nowMs: number): void {
  const job = statement(
    db,
    `SELECT j.deadline_ms, j.updated_at FROM lifecycle_jobs j JOIN launches l ON l.launch_id = j.launch_id
       WHERE j.launch_id = ? AND j.state = 'idle' AND l.status IN ('received', 'validating')`,
  ).get(launchId) as { deadline_ms: number | null; updated_at: string } | undefined;
  if (!job) return;
  const idleMs = Math.max(0, nowMs - Date.parse(job.updated_at));
  statement(
    db,
    `UPDATE lifecycle_jobs SET state = 'scheduled', next_attempt_ms = ?, deadline_ms = ?, updated_at = ?
       WHERE launch_id = ?`,
  ).run(nowMs, job.deadline_ms === null ? null : job.deadline_ms + idleMs, new Date(nowMs).toISOString(), launchId);
}
