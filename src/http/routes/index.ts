import { priceFeedFromConfig } from '../../chain/price-feed.ts';
import type { Config } from '../../config.ts';
import { fundingNonceSeenInOtherRequest } from '../../domain/launches/funding-nonce-reuse.ts';
import { LaunchService } from '../../domain/launches/launch-service.ts';
import type { ExternalReferenceBinder } from '../../domain/launches/preflight.ts';
import { SubkeyService } from '../../domain/partners/subkeys.ts';
import type { EvidenceStateKind } from '../../domain/public/deployment-evidence-check.ts';
import type { Db } from '../../store/db.ts';
import type { OperationHandler } from '../operation.ts';
import { legacyOperations } from './legacy.ts';
import { moduleOperations } from './modules.ts';
import { partnerSubkeyOperations } from './partner-subkeys.ts';
import { publicReadOperations } from './public-reads.ts';
import { v4LaunchOperations } from './v4-launches.ts';

/**
 * Every implemented operation by its spec operationId. An operation of the spec missing here answers
 * 501 NOT_IMPLEMENTED (see createApp) and is listed in the README as not yet implemented.
 */
export function buildOperations(deps: {
  db: Db;
  config: Config;
  now: () => number;
  /** The bound deployment evidence's state; absent on a server without chain gates. */
  evidence?: (() => EvidenceStateKind) | undefined;
  /** The module review worker runs in this process. */
  reviewWorkerRunning?: (() => boolean) | undefined;
  /** The chain gates' read-only external-reference binding; absent on a server without chain gates. */
  referenceBinder?: ExternalReferenceBinder | null | undefined;
}): Record<string, OperationHandler> {
  const launches = new LaunchService(
    deps.db,
    {
      admissionPerHour: deps.config.admissionPerHour,
      admissionPerDay: deps.config.admissionPerDay,
      lifecycleValidationDeadlineMs: deps.config.lifecycle.validationDeadlineMs,
    },
    deps.now,
  );
  const priceFeed = priceFeedFromConfig(deps.config);
  return {
    ...publicReadOperations({ ...deps, priceFeed }),
    ...v4LaunchOperations(
      launches,
      deps.now,
      { canonicalPoolManager: deps.config.canonicalPoolManager },
      priceFeed,
      {
        binder: deps.referenceBinder ?? null,
        fundingNonceConflict: (request) => fundingNonceSeenInOtherRequest(deps.db, request),
      },
      deps.evidence,
    ),
    ...legacyOperations,
    ...moduleOperations(deps),
    ...partnerSubkeyOperations(new SubkeyService(deps.db, deps.now)),
  };
}
