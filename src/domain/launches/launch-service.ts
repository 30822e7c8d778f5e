import { randomUUID } from 'node:crypto';
import type { CustomLaunchCreateRequestV4, CustomLaunchResourceV4 } from '../../../generated/types/service.ts';
import type { Principal } from '../../auth/keys.ts';
import { sha256Digest } from '../../core/canonical-json.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { Db } from '../../store/db.ts';
import { groupCommitOf } from '../../store/group-commit.ts';
import { readCacheOf } from '../../store/read-cache.ts';
import { statement } from '../../store/statements.ts';
import { decodeCursor, encodeCursor } from '../cursor.ts';
import { groupedIdempotentWrite, recordAnswer } from '../idempotency.ts';
import { insertClaimingIntent, intentClaimColumns, refuseClaimedIntent } from '../lanes/launch-intent.ts';
import { checkAdmissionQuota, recordAdmission } from './admission-quota.ts';
import { type LaunchRow, launchSelect, toLaunchResource, visibility } from './launch-resource.ts';
import { checkRequestRules } from './request-rules.ts';
import { receiveSourceFile } from './source-files.ts';

const createOperation = 'createCustomLaunchV4';

const getSqlByVisibility = new Map<string, string>();
/** The detail read for one visibility condition, built once: a fresh 1.5 KB SQL text would be hashed on every read. */
function getSql(where: string): string {
  let sql = getSqlByVisibility.get(where);
  if (sql === undefined) {
    sql = `${launchSelect} WHERE l.chain_id = ? AND l.launch_id = ? AND ${where}`;
    getSqlByVisibility.set(where, sql);
  }
  return sql;
}

/** The V4 launch service: create with idempotency and admission quota, list, get. No Express here. */
export class LaunchService {
  constructor(
    private readonly db: Db,
    private readonly limits: {
      admissionPerHour: number;
      admissionPerDay: number;
      lifecycleValidationDeadlineMs: number;
    },
    private readonly now: () => number,
  ) {}

  /**
   * createCustomLaunchV4: a new request is stored in `received` and answered 202 only after the commit is on disk
   * (synchronous=FULL; the requests of one event-loop turn share one commit, src/store/group-commit.ts); the same key with the same bytes replays the first answer as 200 with the identical body;
   * the same key with other bytes is 409 IDEMPOTENCY_CONFLICT. Replays consume no admission quota. A request whose
   * intent (launchIntentHash, or launchWallet with nonce) a stored launch of the chain holds is 409
   * LAUNCH_INTENT_CONFLICT, storing nothing (src/domain/lanes/launch-intent.ts).
   * Spec: spec/openapi/paths/v4-custom-launches.yaml createCustomLaunchV4.
   */
  create(input: {
    principal: Principal;
    idempotencyKey: string;
    request: CustomLaunchCreateRequestV4;
    rawBody: Buffer;
  }): Promise<{
    status: 200 | 202;
    body: string;
  }> {
    const { principal, idempotencyKey, request, rawBody } = input;
    const idem = {
      // Kept per credential lineage: a rotated subkey's replacement replays its predecessor's create.
      keyId: principal.lineageId,
      operation: createOperation,
      idempotencyKey,
      requestDigest: sha256Digest(rawBody),
    };
    return groupedIdempotentWrite(groupCommitOf(this.db), idem, {
      // Pure CPU over up to megabytes: checked before the write lock is taken, not under it.
      check: () => checkRequestRules(principal, request),
      first: () => {
        const nowMs = this.now();
        const lane = { table: 'launches' as const, chainId: request.chainId };
        refuseClaimedIntent(this.db, lane, principal, request);
        checkAdmissionQuota(this.db, nowMs, {
          perHour: this.limits.admissionPerHour,
          perDay: this.limits.admissionPerDay,
        });
        const at = new Date(nowMs).toISOString();
        const launchId = randomUUID();
        const claims = intentClaimColumns(request);
        insertClaimingIntent(this.db, lane, principal, request, () =>
          statement(
            this.db,
            `INSERT INTO launches (launch_id, chain_id, lineage_id, partner_id, owner_key_id, profile, status,
                 launch_wallet, request_digest, launch_intent_hash, request_bytes, intent_claim, wallet_nonce, created_at,
                 updated_at)
               VALUES (?, ?, ?, ?, ?, ?, 'received', ?, ?, ?, ?, ?, ?, ?, ?)`,
          ).run(
            launchId,
            request.chainId,
            principal.lineageId,
            principal.partnerId,
            principal.keyId,
            request.profile,
            request.launchWallet,
            idem.requestDigest,
            request.launchIntentHash,
            rawBody,
            claims.intent_claim,
            claims.wallet_nonce,
            at,
            at,
          ),
        );
        // The durable job that moves the launch on, committed with it: nothing is lost if the process dies.
        statement(
          this.db,
          // max_attempts is no longer read (the deadline replaced the attempt bound); 0 fills the old NOT NULL column.
          `INSERT INTO lifecycle_jobs (launch_id, state, attempt, max_attempts, next_attempt_ms, deadline_ms, updated_at)
             VALUES (?, 'scheduled', 0, 0, ?, ?, ?)`,
        ).run(launchId, nowMs, nowMs + this.limits.lifecycleValidationDeadlineMs, at);
        const row = statement(this.db, `${launchSelect} WHERE l.launch_id = ?`).get(launchId) as LaunchRow;
        recordAdmission(this.db, nowMs, launchId);
        const body = JSON.stringify(toLaunchResource(row));
        recordAnswer(this.db, idem, { status: 202, body }, at);
        return { status: 202 as const, body };
      },
    });
  }

  /** getCustomLaunchV4: a launch in the credential's visibility, else 404 NOT_FOUND (foreign looks like missing). */
  get(principal: Principal, chainId: string, launchId: string): CustomLaunchResourceV4 {
    return this.detail(principal, chainId, launchId).resource;
  }

  /**
   * getCustomLaunchV4 with the resource's JSON text, both kept until anything is written to the file (a status
   * change, a new finding: every change is a write, src/store/read-cache.ts).
   */
  detail(principal: Principal, chainId: string, launchId: string): { resource: CustomLaunchResourceV4; json: string } {
    const v = visibility(principal, 'l.');
    const found = readCacheOf(this.db).get(`v4-launch:${chainId}:${launchId}:${v.list}`, () => {
      const row = statement(this.db, getSql(v.where)).get(chainId, launchId, v.value) as LaunchRow | undefined;
      if (!row) return null;
      const resource = toLaunchResource(row);
      return { resource, json: JSON.stringify(resource) };
    });
    if (!found)
      throw new ApiError('NOT_FOUND', { message: `No launch ${launchId} on chain ${chainId} for this credential.` });
    return found;
  }

  /** putCustomLaunchSourceFileV4: one delivered source file of the launch's manifest (see receiveSourceFile). */
  deliverSourceFile(input: { principal: Principal; chainId: string; launchId: string; sha256: string; bytes: Buffer }) {
    return receiveSourceFile(this.db, { ...input, now: this.now() });
  }

  /** listCustomLaunchesV4: newest first, `limit` per page, opaque cursor; scoped to the credential. */
  list(
    principal: Principal,
    chainId: string,
    limit: number,
    cursor: string | undefined,
  ): { launches: CustomLaunchResourceV4[]; nextCursor: string | null } {
    const v = visibility(principal, 'l.');
    const listName = `v4:${chainId}:${v.list}`;
    const before = cursor === undefined ? Number.MAX_SAFE_INTEGER : decodeCursor(listName, cursor);
    const rows = statement(
      this.db,
      `${launchSelect} WHERE l.chain_id = ? AND ${v.where} AND l.seq < ? ORDER BY l.seq DESC LIMIT ?`,
    ).all(chainId, v.value, before, limit + 1) as LaunchRow[];
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      launches: page.map(toLaunchResource),
      nextCursor: rows.length > limit && last ? encodeCursor(listName, last.seq) : null,
    };
  }
}
