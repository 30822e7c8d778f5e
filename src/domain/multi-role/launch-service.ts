import type {
  MultiRoleCustomLaunchCreateRequestV2,
  MultiRoleCustomLaunchListV2,
  MultiRoleCustomLaunchResourceV2,
} from '../../../generated/types/service.ts';
import type { Principal } from '../../auth/keys.ts';
import { digestOf } from '../../core/request-hashes.ts';
import type { Db } from '../../store/db.ts';
import { laneLaunchPage } from '../lanes/launch-access.ts';
import { createLaneLaunch, insertLaneLaunch } from '../lanes/launch-admission.ts';
import { toMultiRoleLaunchResource, visibleMultiRoleLaunch } from './launch-resource.ts';
import { type MultiRoleLaunchRow, multiRoleLaunchRow } from './launch-store.ts';

const createOperation = 'createMultiRoleCustomLaunch';

/** The create rules of this deployment over a schema-valid request (a refusal throws its ApiError). */
export type MultiRoleRequestCheck = (
  principal: Principal,
  request: MultiRoleCustomLaunchCreateRequestV2,
  rawBytes: Buffer,
) => void;

/** What the shared-lane launch service works with. */
export interface MultiRoleLaunchDeps {
  db: Db;
  now: () => number;
  /** The global new-request admission shared with V4 and V3 (ADMISSION_PER_HOUR, ADMISSION_PER_DAY). */
  admission: { perHour: number; perDay: number };
  checkRules: MultiRoleRequestCheck;
}

/** The shared-lane (MultiRole V2) launch service: create, list and get. No Express. */
export class MultiRoleLaunches {
  constructor(private readonly deps: MultiRoleLaunchDeps) {}

  /**
   * createMultiRoleCustomLaunch: a new request is checked, admitted by the global quota and stored in `received`
   * with its scheduled lifecycle job in one immediate transaction, answered 202; the same key with the same bytes
   * replays the first answer as 200 (consuming no quota); other bytes are 409 IDEMPOTENCY_CONFLICT; an intent the
   * lane already holds (launchIntentHash, or launchWallet with nonce) is 409 LAUNCH_INTENT_CONFLICT.
   * Spec: spec/openapi/paths/multi-role-custom-launches.yaml createMultiRoleCustomLaunch.
   */
  create(
    principal: Principal,
    request: MultiRoleCustomLaunchCreateRequestV2,
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
        jobs: 'multi_role_lifecycle_jobs',
        launches: 'multi_role_launches',
        intent: request,
        check: () => this.deps.checkRules(principal, request, rawBytes),
        insert: (launchId, at) => insertMultiRoleLaunch(db, { launchId, at, principal, request, rawBytes }),
        answer: (launchId) =>
          JSON.stringify(toMultiRoleLaunchResource(multiRoleLaunchRow(db, launchId) as MultiRoleLaunchRow)),
      },
      db,
    );
  }

  /**
   * getMultiRoleCustomLaunch: a launch in the credential's visibility, else 404 NOT_FOUND.
   * Spec: spec/openapi/paths/multi-role-custom-launch.yaml.
   */
  get(principal: Principal, launchId: string): MultiRoleCustomLaunchResourceV2 {
    return toMultiRoleLaunchResource(visibleMultiRoleLaunch(this.deps.db, principal, launchId));
  }

  /**
   * listMultiRoleCustomLaunches: newest first, `limit` per page, an opaque cursor bound to this list; scoped like get.
   * Spec: spec/openapi/paths/multi-role-custom-launches.yaml listMultiRoleCustomLaunches.
   */
  list(principal: Principal, limit: number, cursor: string | undefined): MultiRoleCustomLaunchListV2 {
    const page = laneLaunchPage<MultiRoleLaunchRow>(this.deps.db, 'multi_role_launches', 'multi-role', principal, {
      limit,
      cursor,
    });
    return { launches: page.rows.map(toMultiRoleLaunchResource), nextCursor: page.nextCursor };
  }
}

/** The row of a new shared-lane launch in `received`, bound to the creating credential's lineage. */
function insertMultiRoleLaunch(
  db: Db,
  input: {
    launchId: string;
    at: string;
    principal: Principal;
    request: MultiRoleCustomLaunchCreateRequestV2;
    rawBytes: Buffer;
  },
): void {
  const { request } = input;
  insertLaneLaunch(
    db,
    'multi_role_launches',
    {
      ...input,
      launchWallet: request.launchWallet,
      requestHash: digestOf(request),
      launchIntentHash: request.launchIntentHash,
      nonce: request.nonce,
    },
    { profile_revision: request.profile.revision },
  );
}
