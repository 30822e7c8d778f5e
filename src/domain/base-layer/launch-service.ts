import type { CustomLaunchCreateRequestV3, CustomLaunchResourceV3 } from '../../../generated/types/service.ts';
import type { Principal } from '../../auth/keys.ts';
import { digestOf } from '../../core/request-hashes.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { Db } from '../../store/db.ts';
import { statement } from '../../store/statements.ts';
import { laneLaunchPage } from '../lanes/launch-access.ts';
import { createLaneLaunch, insertLaneLaunch } from '../lanes/launch-admission.ts';
import { apiWorker, type FundingTokenReader, submitFundingAuthorization } from './funding-authorization.ts';
import { initialFundingAuthorization, toBaseLaunchResource, visibleBaseLaunch } from './launch-resource.ts';
import { type BaseLaunchRow, type BaseLaunchStatus, baseLaunchRow, moveBaseLaunch } from './launch-store.ts';

const createOperation = 'createCustomLaunchV3';

/** The create rules of this deployment over a schema-valid request (a refusal throws its ApiError). */
export type BaseRequestCheck = (principal: Principal, request: CustomLaunchCreateRequestV3, rawBytes: Buffer) => void;

/** What the base-layer launch service works with. */
export interface BaseLayerLaunchDeps {
  db: Db;
  now: () => number;
  /** The global new-request admission shared with V4 (ADMISSION_PER_HOUR, ADMISSION_PER_DAY). */
  admission: { perHour: number; perDay: number };
  checkRules: BaseRequestCheck;
  /** The chain-1 reads of the funding tokens; null on a deployment without a base layer. */
  fundingTokens: FundingTokenReader | null;
}

/** The statuses a launch may be cancelled from: every status before its wallet transaction is submitted. */
const cancellable: readonly BaseLaunchStatus[] = [
  'received',
  'validating',
  'pending_review',
  'action_required',
  'awaiting_funding_authorization',
  'funding_authorization_verified',
  'prepared',
  'simulating',
  'authorized',
];

/** The base-layer V3 launch service: create, list, get, the funding authorization and cancellation. No Express. */
export class BaseLayerLaunches {
  constructor(private readonly deps: BaseLayerLaunchDeps) {}

  /**
   * createCustomLaunchV3: a new request is checked, admitted by the global quota and stored in `received` with its
   * scheduled lifecycle job in one immediate transaction, answered 202; the same key with the same bytes replays the
   * first answer as 200 (consuming no quota); other bytes are 409 IDEMPOTENCY_CONFLICT; an intent the lane already
   * holds (launchIntentHash, or launchWallet with nonce) is 409 LAUNCH_INTENT_CONFLICT.
   * Spec: spec/openapi/paths/v3-custom-launches.yaml createCustomLaunchV3.
   */
  create(
    principal: Principal,
    request: CustomLaunchCreateRequestV3,
    rawBytes: Buffer,
    idempotencyKey: string,
  ): { status: 200 | 202; body: string } {
    const { db } = this.deps;
    return createLaneLaunch(
      {
        principal,
        rawBytes,
        idempotencyKey,
        operation: createOperation,
        nowMs: this.deps.now,
        admission: this.deps.admission,
        jobs: 'v3_lifecycle_jobs',
        launches: 'v3_launches',
        intent: request,
        check: () => this.deps.checkRules(principal, request, rawBytes),
        insert: (launchId, at) => insertBaseLaunch(db, { launchId, at, principal, request, rawBytes }),
        answer: (launchId) => JSON.stringify(toBaseLaunchResource(baseLaunchRow(db, launchId) as BaseLaunchRow)),
      },
      db,
    );
  }

  /**
   * getCustomLaunchV3: a launch in the credential's visibility, else 404 NOT_FOUND (foreign looks like missing).
   * Spec: spec/openapi/paths/v3-custom-launch.yaml.
   */
  get(principal: Principal, launchId: string): CustomLaunchResourceV3 {
    return toBaseLaunchResource(visibleBaseLaunch(this.deps.db, principal, launchId));
  }

  /**
   * listCustomLaunchesV3: newest first, `limit` per page, an opaque cursor bound to this list; scoped like get.
   * Spec: spec/openapi/paths/v3-custom-launches.yaml listCustomLaunchesV3.
   */
  list(
    principal: Principal,
    limit: number,
    cursor: string | undefined,
  ): { launches: CustomLaunchResourceV3[]; nextCursor: string | null } {
    const page = laneLaunchPage<BaseLaunchRow>(this.deps.db, 'v3_launches', 'v3', principal, { limit, cursor });
    return { launches: page.rows.map(toBaseLaunchResource), nextCursor: page.nextCursor };
  }

  /**
   * submitFundingAuthorizationV3 (spec/openapi/paths/v3-custom-launch-funding-authorization.yaml): see
   * submitFundingAuthorization.
   */
  async submitFundingAuthorization(
    principal: Principal,
    launchId: string,
    signature: string,
  ): Promise<CustomLaunchResourceV3> {
    const { db, now, fundingTokens } = this.deps;
    return submitFundingAuthorization({ db, now, reader: fundingTokens }, principal, launchId, signature);
  }

  /**
   * cancelCustomLaunchV3: a launch before `submitted` ends in `cancelled` and its job is done; a cancelled launch
   * answers unchanged; `submitted`, `finalized` and `failed` are 409 LAUNCH_NOT_CANCELLABLE.
   * Spec: spec/openapi/paths/v3-custom-launch-cancellation.yaml cancelCustomLaunchV3.
   */
  cancel(principal: Principal, launchId: string): CustomLaunchResourceV3 {
    const { db } = this.deps;
    return db
      .transaction(() => {
        const row = visibleBaseLaunch(db, principal, launchId);
        if (row.status === 'cancelled') return toBaseLaunchResource(row);
        if (!cancellable.includes(row.status)) throw new ApiError('LAUNCH_NOT_CANCELLABLE');
        const at = new Date(this.deps.now()).toISOString();
        // The immediate transaction holds the write lock, so the status read above is still the current one.
        moveBaseLaunch(db, { launchId, from: row.status, to: 'cancelled', worker: apiWorker, at });
        statement(db, `UPDATE v3_lifecycle_jobs SET state = 'done', updated_at = ? WHERE launch_id = ?`).run(
          at,
          launchId,
        );
        return toBaseLaunchResource(baseLaunchRow(db, launchId) as BaseLaunchRow);
      })
      .immediate();
  }
}

/** The row of a new base-layer launch in `received`, bound to the creating credential's lineage. */
function insertBaseLaunch(
  db: Db,
  input: { launchId: string; at: string; principal: Principal; request: CustomLaunchCreateRequestV3; rawBytes: Buffer },
): void {
  const { request } = input;
  const funding = initialFundingAuthorization(request);
  insertLaneLaunch(
    db,
    'v3_launches',
    {
      ...input,
      launchWallet: request.launchWallet,
      requestHash: digestOf(request),
      launchIntentHash: request.launchIntentHash,
      nonce: request.nonce,
    },
    {
      profile_version: request.profile.version,
      funding_mode: request.funding.mode,
      funding_authorization_json: funding ? JSON.stringify(funding) : null,
    },
  );
}
