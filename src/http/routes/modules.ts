import type { ModuleSubmissionRequest } from '../../../generated/types/service.ts';
import { modulesCapabilities, modulesContext } from '../../domain/modules/context.ts';
import { listReceipts, readReceipt, submitModule } from '../../domain/modules/intake.ts';
import { readReviewStatus, reviewExport, reviewerPolicy } from '../../domain/modules/review.ts';
import { reviewCapabilities, workerSourceCommit } from '../../domain/modules/review-capabilities.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { ErrorCode } from '../../errors/codes.ts';
import type { Services } from '../../services.ts';
import {
  idempotencyKeyOf,
  jsonBody,
  type OperationContext,
  type OperationHandler,
  principalOf,
  type RouteTable,
  rawBodyOf,
} from '../operation.ts';

/** The module routes name a missing credential AUTHENTICATION_REQUIRED (spec/schemas/api-error.schema.json). */
const moduleCaller = (ctx: OperationContext) => principalOf(ctx, 'AUTHENTICATION_REQUIRED');

/**
 * The module submission's named codes for schema failures (spec/openapi/paths/modules-submissions.yaml, submitModule): when every
 * issue lies in the reward wallet, OPEN_ADDRESS; in the inventory's hashes, OPEN_SOURCE_HASH; in the submitted
 * files' hashes or bytes, MODULE_FILE_HASH. Anything else stays INVALID_REQUEST.
 */
function submissionIssueCode(locations: string[]): ErrorCode | undefined {
  const rules: Array<[RegExp, ErrorCode]> = [
    [/^\/body\/descriptor\/rewardWallet$/, 'OPEN_ADDRESS'],
    [/^\/body\/descriptor\/source\/files\/\d+\/sha256$/, 'OPEN_SOURCE_HASH'],
    [/^\/body\/files\/\d+\/(sha256|bytes)$/, 'MODULE_FILE_HASH'],
  ];
  if (locations.length === 0) return undefined;
  for (const [pattern, code] of rules) if (locations.every((l) => pattern.test(l))) return code;
  return undefined;
}

/**
 * Routes of the module intake (spec/openapi/paths/modules-*.yaml): JSON bodies within MODULES_MAX_REQUEST_BYTES,
 * the module routes' authentication, and uploads refused before anything of the upload is read (not even its body)
 * on a deployment that takes none.
 */
export function moduleRoutes(services: Services): RouteTable {
  const handlers = moduleHandlers(services);
  const body = jsonBody(services.config.modulesLimits.maxRequestBytes);
  const uploadsClosed = () =>
    services.config.modulesSubmissions
      ? undefined
      : new ApiError('MODULE_SUBMISSIONS_UNAVAILABLE', { retryAfterSeconds: 3600 });
  return {
    getModulesCapabilities: { handler: handlers.getModulesCapabilities, body },
    getModuleReviewCapabilities: { handler: handlers.getModuleReviewCapabilities, body },
    getModulesContext: { handler: handlers.getModulesContext, body, auth: 'modules' },
    listModuleSubmissions: { handler: handlers.listModuleSubmissions, body, auth: 'modules' },
    submitModule: {
      handler: handlers.submitModule,
      body,
      auth: 'modules',
      gate: uploadsClosed,
      // A bounded 500 may come after the draft's write began: the client keeps its key and bytes (submissionMayExist).
      errors: { issueCode: submissionIssueCode, writeMayHaveCommitted: true },
    },
    getModuleSubmission: { handler: handlers.getModuleSubmission, body, auth: 'modules' },
    getModuleReviewStatus: { handler: handlers.getModuleReviewStatus, body, auth: 'modules' },
    getModuleReviewExport: { handler: handlers.getModuleReviewExport, body, auth: { modules: { reviewExport: true } } },
  };
}

function moduleHandlers(deps: Services) {
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
  } satisfies Record<string, OperationHandler>;
}
