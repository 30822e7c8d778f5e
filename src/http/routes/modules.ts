import type { Config } from '../../config.ts';
import { modulesCapabilities, modulesContext } from '../../domain/modules/context.ts';
import { listReceipts, type ModuleSubmissionRequest, readReceipt, submitModule } from '../../domain/modules/intake.ts';
import { readReviewStatus, reviewExport, reviewerPolicy } from '../../domain/modules/review.ts';
import { reviewCapabilities, workerSourceCommit } from '../../domain/modules/review-capabilities.ts';
import type { Db } from '../../store/db.ts';
import {
  idempotencyKeyOf,
  type OperationContext,
  type OperationHandler,
  principalOf,
  rawBodyOf,
} from '../operation.ts';

/** The module routes name a missing credential AUTHENTICATION_REQUIRED (modules-subkeys-developer-api.md Errors). */
const moduleCaller = (ctx: OperationContext) => principalOf(ctx, 'AUTHENTICATION_REQUIRED');

/** Handlers of the module intake routes (modules-subkeys-developer-api.md Endpoints). */
export function moduleOperations(deps: {
  db: Db;
  config: Config;
  now: () => number;
  /** The module review worker runs in this process (its authority to build reviews). */
  reviewWorkerRunning?: (() => boolean) | undefined;
}): Record<string, OperationHandler> {
  const { db, config, now } = deps;
  const policy = reviewerPolicy(config.modulesReviewerWallets);
  const sourceCommit = workerSourceCommit();
  // The one review readiness: the public review capabilities and the context's review block both read it.
  const readiness = () =>
    reviewCapabilities(db, {
      reviewerPolicyDigest: policy.digest,
      workerRunning: deps.reviewWorkerRunning?.() ?? false,
      sourceCommit,
    });
  return {
    getModuleReviewCapabilities: () => ({ status: 200, body: readiness() }),
    getModuleReviewExport: (ctx) => ({
      status: 200,
      rawJson: reviewExport(db, moduleCaller(ctx), String(ctx.params.submissionId), now()),
      headers: { 'Cache-Control': 'no-store', Vary: 'Authorization' },
    }),
    getModuleReviewStatus: (ctx) => ({
      status: 200,
      body: readReviewStatus(db, moduleCaller(ctx), String(ctx.params.submissionId)),
    }),
    getModulesCapabilities: () => ({ status: 200, body: modulesCapabilities(config) }),
    getModulesContext: (ctx) => ({ status: 200, body: modulesContext(moduleCaller(ctx), config, readiness()) }),
    submitModule: (ctx) => {
      const principal = moduleCaller(ctx);
      const answer = submitModule(db, {
        principal,
        idempotencyKey: idempotencyKeyOf(ctx),
        request: ctx.body as ModuleSubmissionRequest,
        rawBody: rawBodyOf(ctx),
        now: now(),
        limits: config.modulesLimits,
      });
      return { status: answer.status, rawJson: answer.body };
    },
    getModuleSubmission: (ctx) => ({
      status: 200,
      rawJson: readReceipt(db, moduleCaller(ctx), String(ctx.params.submissionId)),
    }),
    listModuleSubmissions: (ctx) => ({
      status: 200,
      rawJson: listReceipts(
        db,
        moduleCaller(ctx),
        ctx.query.cursor === undefined ? undefined : String(ctx.query.cursor),
      ),
    }),
  };
}
