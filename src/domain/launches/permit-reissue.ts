import type {
  CustomLaunchFailureV4,
  CustomLaunchPermitReissueV4,
  PermitReissueDispositionRequestV1,
  PermitReissueDispositionV1,
} from '../../../generated/types/service.ts';
import type { Principal } from '../../auth/keys.ts';
import { sha256Digest } from '../../core/canonical-json.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { Db } from '../../store/db.ts';
import { statement } from '../../store/statements.ts';
import { apiWorker } from '../base-layer/funding-authorization.ts';
import { idempotentWrite, recordAnswer } from '../idempotency.ts';
import { type LaneTables, moveLaneLaunch } from '../lanes/launch-table.ts';
import { type FindingCode, findingCodes } from './finding-codes.ts';
import { permitReissueOf, visibility } from './launch-resource.ts';

const operation = 'decidePermitReissueV4';
const tables: LaneTables = { launches: 'launches', transitions: 'launch_transitions' };

/**
 * The failure of a terminal `failed` V4 launch with its code, message and the code's remediation
 * (spec/schemas/custom-launch-resource.v4.schema.json Failure).
 */
export function launchFailure(code: FindingCode, message: string, failedAt: string): CustomLaunchFailureV4 {
  return {
    code,
    message: message.slice(0, 1024),
    failedAt,
    remediation: { findingCodes: [code], action: findingCodes[code].obligation, newRequestRequired: true },
  };
}

/**
 * The tracker's expiry path (spec/schemas/custom-launch-resource.v4.schema.json permitReissue): the permit expired
 * by chain time and no block up to the head holds the exact transaction, so the launch waits for the controller's
 * decision instead of failing. In one transaction, only while the launch still has status `from`: status
 * `wallet_action_required`, no wallet transaction (the expired one can only revert), permitReissue
 * `awaiting_decision` with the decision deadline (`nowMs` + `windowMs`, server clock) and the count of earlier
 * reissues kept, and the job idle. Returns whether it moved the launch.
 */
export function awaitPermitReissue(
  db: Db,
  input: {
    launchId: string;
    from: string;
    expiredPermitExpiresAt: string;
    nowMs: number;
    windowMs: number;
    workerId: string;
  },
): boolean {
  const at = new Date(input.nowMs).toISOString();
  return db
    .transaction(() => {
      const earlier = statement(db, 'SELECT permit_reissue_json FROM launches WHERE launch_id = ?').get(
        input.launchId,
      ) as { permit_reissue_json: string | null } | undefined;
      if (!earlier) return false;
      const reissue: CustomLaunchPermitReissueV4 = {
        status: 'awaiting_decision',
        expiredPermitExpiresAt: input.expiredPermitExpiresAt,
        decisionDeadlineAt: new Date(input.nowMs + input.windowMs).toISOString(),
        decidedAt: null,
        reissueCount: permitReissueOf(earlier)?.reissueCount ?? 0,
      };
      const moved = moveLaneLaunch(
        db,
        tables,
        { launchId: input.launchId, from: input.from, to: 'wallet_action_required', worker: input.workerId, at },
        { wallet_transaction_json: null, permit_reissue_json: JSON.stringify(reissue) },
      );
      if (moved) idleJob(db, input.launchId, at);
      return moved;
    })
    .immediate();
}

/**
 * Fails every launch whose permit-reissue decision deadline passed with no decision (LAUNCH_PERMIT_EXPIRED,
 * permitReissue `decision_deadline_passed`), each in its own transaction guarded by its status. Returns how many.
 */
export function failUndecidedPermitReissues(db: Db, nowMs: number, workerId: string): number {
  const rows = statement(
    db,
    `SELECT launch_id, permit_reissue_json FROM launches WHERE status = 'wallet_action_required'
       AND json_extract(permit_reissue_json, '$.status') = 'awaiting_decision'`,
  ).all() as Array<{ launch_id: string; permit_reissue_json: string }>;
  const at = new Date(nowMs).toISOString();
  let failed = 0;
  for (const row of rows) {
    const reissue = permitReissueOf(row) as CustomLaunchPermitReissueV4;
    if (nowMs < Date.parse(reissue.decisionDeadlineAt)) continue;
    const failure = launchFailure(
      'LAUNCH_PERMIT_EXPIRED',
      `The permit expired at ${reissue.expiredPermitExpiresAt} (chain time) before the exact wallet transaction was mined, and no permit-reissue decision was made by ${reissue.decisionDeadlineAt}.`,
      at,
    );
    const moved = db
      .transaction(() =>
        moveLaneLaunch(
          db,
          tables,
          { launchId: row.launch_id, from: 'wallet_action_required', to: 'failed', worker: workerId, at },
          {
            failure_json: JSON.stringify(failure),
            permit_reissue_json: JSON.stringify({ ...reissue, status: 'decision_deadline_passed' }),
          },
        ),
      )
      .immediate();
    if (moved) failed += 1;
  }
  return failed;
}

/** What decidePermitReissueV4 needs besides the request. */
export interface PermitReissueDeps {
  db: Db;
  now: () => number;
  /** LIFECYCLE_VALIDATION_DEADLINE_MS: the validation deadline of the gates run again after a reissue. */
  validationDeadlineMs: number;
}

/**
 * decidePermitReissueV4 (spec/openapi/paths/v4-permit-reissue-disposition.yaml): the controller's decision about a
 * launch awaiting one. Refusals, in order: a partner credential 403 WALLET_KEY_REQUIRED, a body launchWallet other
 * than the key's wallet 403 WALLET_MISMATCH, a body launchId other than the path's 400 INVALID_REQUEST, a launch the
 * key cannot read 404 NOT_FOUND, a requestDigest other than the launch's 400 INVALID_REQUEST; an exact replay of the
 * Idempotency-Key answers the first disposition (200), other bytes 409 IDEMPOTENCY_CONFLICT; a launch not awaiting a
 * decision (or past its deadline) 409 PERMIT_REISSUE_NOT_AWAITED. The decision, the status move with its transition
 * and the rescheduled job (reissue) commit in one transaction before the answer.
 */
export function decidePermitReissue(
  deps: PermitReissueDeps,
  input: {
    principal: Principal;
    launchId: string;
    idempotencyKey: string;
    request: PermitReissueDispositionRequestV1;
    rawBody: Buffer;
  },
): { status: 200; body: string } {
  const { principal, launchId, request } = input;
  if (principal.kind !== 'wallet') throw new ApiError('WALLET_KEY_REQUIRED');
  if (request.launchWallet.toLowerCase() !== principal.wallet?.toLowerCase()) throw new ApiError('WALLET_MISMATCH');
  if (request.launchId.toLowerCase() !== launchId.toLowerCase()) {
    throw new ApiError('INVALID_REQUEST', { message: `The body's launchId is not the path's launchId ${launchId}.` });
  }
  const idem = {
    keyId: principal.keyId,
    operation,
    idempotencyKey: input.idempotencyKey,
    requestDigest: sha256Digest(input.rawBody),
  };
  return idempotentWrite(deps.db, idem, {
    check: () => checkVisibleLaunch(deps.db, principal, launchId, request.requestDigest),
    first: () => {
      const nowMs = deps.now();
      const at = new Date(nowMs).toISOString();
      const row = statement(deps.db, 'SELECT status, permit_reissue_json FROM launches WHERE launch_id = ?').get(
        launchId,
      ) as { status: string; permit_reissue_json: string | null };
      const reissue = permitReissueOf(row);
      if (
        row.status !== 'wallet_action_required' ||
        reissue?.status !== 'awaiting_decision' ||
        nowMs >= Date.parse(reissue.decisionDeadlineAt)
      ) {
        throw new ApiError('PERMIT_REISSUE_NOT_AWAITED');
      }
      const disposition = applyDecision(deps, { launchId, decision: request.decision, reissue, nowMs, at });
      const body = JSON.stringify({
        schemaVersion: 'platform.custom-launch-permit-reissue-disposition.v1',
        chainId: '4663',
        launchId,
        requestDigest: request.requestDigest,
        decision: request.decision,
        ...disposition,
        decidedAt: at,
      } satisfies PermitReissueDispositionV1);
      recordAnswer(deps.db, idem, { status: 200, body }, at);
      return { status: 200 as const, body };
    },
  });
}

/** The launch must be one the key reads (else 404, as a foreign launch looks missing) and bind requestDigest. */
function checkVisibleLaunch(db: Db, principal: Principal, launchId: string, requestDigest: string): void {
  const v = visibility(principal);
  const row = statement(
    db,
    `SELECT request_digest FROM launches WHERE chain_id = '4663' AND launch_id = ? AND ${v.where}`,
  ).get(launchId, v.value) as { request_digest: string } | undefined;
  if (!row) throw new ApiError('NOT_FOUND', { message: `No launch ${launchId} on chain 4663 for this credential.` });
  if (row.request_digest !== requestDigest) {
    throw new ApiError('INVALID_REQUEST', {
      message: `The body's requestDigest is not the launch's requestDigest ${row.request_digest}.`,
    });
  }
}

/**
 * Commits a decision (inside decidePermitReissue's transaction). decline: `failed` with PERMIT_REISSUE_DECLINED.
 * reissue: back to `validating` with the job scheduled now and a fresh validation deadline, so the worker runs the
 * server gates again and binds a new permit and wallet transaction.
 */
function applyDecision(
  deps: PermitReissueDeps,
  d: {
    launchId: string;
    decision: 'reissue' | 'decline';
    reissue: CustomLaunchPermitReissueV4;
    nowMs: number;
    at: string;
  },
): Pick<PermitReissueDispositionV1, 'disposition' | 'launchStatus'> {
  const { db } = deps;
  const move = { launchId: d.launchId, from: 'wallet_action_required', worker: apiWorker, at: d.at };
  if (d.decision === 'decline') {
    const failure = launchFailure(
      'PERMIT_REISSUE_DECLINED',
      `The permit expired at ${d.reissue.expiredPermitExpiresAt} (chain time) before the exact wallet transaction was mined, and the controller declined a new permit.`,
      d.at,
    );
    moveLaneLaunch(
      db,
      tables,
      { ...move, to: 'failed' },
      {
        failure_json: JSON.stringify(failure),
        permit_reissue_json: JSON.stringify({ ...d.reissue, status: 'declined', decidedAt: d.at }),
      },
    );
    return { disposition: 'declined', launchStatus: 'failed' };
  }
  const reissued = { ...d.reissue, status: 'reissued', decidedAt: d.at, reissueCount: d.reissue.reissueCount + 1 };
  moveLaneLaunch(db, tables, { ...move, to: 'validating' }, { permit_reissue_json: JSON.stringify(reissued) });
  statement(
    db,
    `UPDATE lifecycle_jobs SET state = 'scheduled', attempt = 0, next_attempt_ms = ?, deadline_ms = ?,
       lease_owner = NULL, lease_expires_ms = NULL, last_error_code = NULL, updated_at = ? WHERE launch_id = ?`,
  ).run(d.nowMs, d.nowMs + deps.validationDeadlineMs, d.at, d.launchId);
  return { disposition: 'reissue_scheduled', launchStatus: 'validating' };
}

/** The job of a launch waiting on its controller: nothing scheduled, no retry shown. */
function idleJob(db: Db, launchId: string, at: string): void {
  statement(
    db,
    `UPDATE lifecycle_jobs SET state = 'idle', attempt = 0, next_attempt_ms = NULL, last_error_code = NULL,
       updated_at = ? WHERE launch_id = ?`,
  ).run(at, launchId);
}
