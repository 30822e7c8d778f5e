import { randomUUID } from 'node:crypto';
import type { Principal } from '../../auth/keys.ts';
import { sha256Digest } from '../../core/canonical-json.ts';
import type { Db } from '../../store/db.ts';
import { statement } from '../../store/statements.ts';
import { idempotentWrite, recordAnswer } from '../idempotency.ts';
import { checkAdmissionQuota, recordAdmission } from '../launches/admission-quota.ts';
import { partnerAttributionFor } from './launch-access.ts';
import { insertClaimingIntent, intentClaimColumns, type LaunchIntent, refuseClaimedIntent } from './launch-intent.ts';
import type { LaneTables } from './launch-table.ts';

/** A lane's durable lifecycle job table (src/store/migrations.ts). */
export type LaneJobsTable = 'v3_lifecycle_jobs' | 'multi_role_lifecycle_jobs';

/** One create of a lane's launch: who asks, the exact bytes, and the lane's own rule check and row insert. */
export interface LaneCreate {
  principal: Principal;
  rawBytes: Buffer;
  idempotencyKey: string;
  /** The spec operationId the idempotency record is kept under. */
  operation: string;
  nowMs: () => number;
  /** The global new-request admission shared by every lane (ADMISSION_PER_HOUR, ADMISSION_PER_DAY). */
  admission: { perHour: number; perDay: number };
  jobs: LaneJobsTable;
  /** The lane's launch table, which holds one launch per intent. */
  launches: LaneTables['launches'];
  /** The request's intent: its launchIntentHash, launchWallet and nonce. */
  intent: LaunchIntent;
  /** The lane's request rules (a refusal throws its ApiError); pure CPU, run outside the write lock. */
  check: () => void;
  /** Inserts the launch row in `received`. */
  insert: (launchId: string, at: string) => void;
  /** The stored launch's resource as JSON: the 202 body, replayed byte for byte. */
  answer: (launchId: string) => string;
}

/**
 * The create of every lane (createCustomLaunchV3, createMultiRoleCustomLaunch): a new request is checked, admitted
 * by the global quota and stored with its scheduled lifecycle job in one immediate transaction, answered 202; the
 * same key with the same bytes replays the first answer as 200 (consuming no quota); other bytes are 409
 * IDEMPOTENCY_CONFLICT (src/domain/idempotency.ts); an intent the lane already holds is 409 LAUNCH_INTENT_CONFLICT
 * (src/domain/lanes/launch-intent.ts). Nothing is stored by a refusal.
 */
export function createLaneLaunch(create: LaneCreate, db: Db): { status: 200 | 202; body: string } {
  const idem = {
    // Kept per credential lineage: a rotated subkey's replacement replays its predecessor's create.
    keyId: create.principal.lineageId,
    operation: create.operation,
    idempotencyKey: create.idempotencyKey,
    requestDigest: sha256Digest(create.rawBytes),
  };
  return idempotentWrite(db, idem, {
    // Pure CPU over up to megabytes: checked before the write lock is taken, not under it.
    check: () => create.check(),
    first: () => {
      const nowMs = create.nowMs();
      const lane = { table: create.launches, chainId: null };
      refuseClaimedIntent(db, lane, create.principal, create.intent);
      checkAdmissionQuota(db, nowMs, create.admission);
      const at = new Date(nowMs).toISOString();
      const launchId = randomUUID();
      insertClaimingIntent(db, lane, create.principal, create.intent, () => create.insert(launchId, at));
      // The durable job that moves the launch on, committed with it: nothing is lost if the process dies.
      statement(
        db,
        `INSERT INTO ${create.jobs} (launch_id, state, attempt, next_attempt_ms, updated_at)
           VALUES (?, 'scheduled', 0, ?, ?)`,
      ).run(launchId, nowMs, at);
      recordAdmission(db, nowMs, launchId);
      const body = create.answer(launchId);
      recordAnswer(db, idem, { status: 202, body }, at);
      return { status: 202 as const, body };
    },
  });
}

/** What every lane's launch row binds at create: the request's identity and the creating credential's lineage. */
export interface LaneLaunchInsert {
  launchId: string;
  at: string;
  principal: Principal;
  launchWallet: string;
  /** RFC 8785 SHA-256 of the request (requestHash). */
  requestHash: string;
  launchIntentHash: string;
  nonce: string;
  rawBytes: Buffer;
}

/**
 * Inserts a lane's new launch in `received` with the columns every lane has (src/store/migrations.ts) and the lane's
 * own `laneColumns`; the partner attribution is derived from the credential, never from the request.
 */
export function insertLaneLaunch(
  db: Db,
  table: LaneTables['launches'],
  launch: LaneLaunchInsert,
  laneColumns: Record<string, string | number | null>,
): void {
  const { launchId, at, principal } = launch;
  const attribution = partnerAttributionFor(principal);
  const columns: Record<string, string | number | Buffer | null> = {
    launch_id: launchId,
    lineage_id: principal.lineageId,
    partner_id: principal.partnerId,
    owner_key_id: principal.keyId,
    status: 'received',
    launch_wallet: launch.launchWallet,
    request_hash: launch.requestHash,
    launch_intent_hash: launch.launchIntentHash,
    request_bytes: launch.rawBytes,
    partner_attribution_json: attribution ? JSON.stringify(attribution) : null,
    ...intentClaimColumns(launch),
    ...laneColumns,
    created_at: at,
    updated_at: at,
  };
  const names = Object.keys(columns);
  statement(db, `INSERT INTO ${table} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`).run(
    ...Object.values(columns),
  );
}
