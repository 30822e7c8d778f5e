import { minimumInitialBuyWei, type PriceFeed } from '../../chain/price-feed.ts';
import type { AdmissionConfig } from '../../domain/admission/evaluate.ts';
import type { LaunchService } from '../../domain/launches/launch-service.ts';
import { type PreflightSources, preflightV4 } from '../../domain/launches/preflight.ts';
import type { CreateRequestV4 } from '../../domain/launches/request-rules.ts';
import { type EvidenceStateKind, evidenceCheck } from '../../domain/public/deployment-evidence-check.ts';
import { ApiError } from '../../errors/api-error.ts';
import { idempotencyKeyOf, type OperationHandler, pageOf, principalOf, rawBodyOf } from '../operation.ts';

/** Handlers of the authenticated V4 launch operations (launch-transport.md Endpoints). */
export function v4LaunchOperations(
  launches: LaunchService,
  now: () => number,
  admission: AdmissionConfig,
  priceFeed: PriceFeed | null,
  preflightSources: PreflightSources,
  evidence?: () => EvidenceStateKind,
): Record<string, OperationHandler> {
  /** Preflight and create need verified deployment evidence on a server bound to a chain (issue 7 item 5). */
  const requireVerifiedEvidence = () => {
    const check = evidence ? evidenceCheck(evidence()) : { ok: true, reason: null };
    if (check.reason === 'DEPLOYMENT_EVIDENCE_TAMPERED') throw new ApiError('DEPLOYMENT_EVIDENCE_TAMPERED');
    if (check.reason) throw new ApiError('DEPLOYMENT_EVIDENCE_UNVERIFIED', { retryAfterSeconds: 10 });
  };
  return {
    preflightCustomLaunchV4: async (ctx) => {
      requireVerifiedEvidence();
      const evidence = { minimumInitialBuyWei: await minimumInitialBuyWei(priceFeed, now()) };
      return {
        status: 200,
        body: await preflightV4(
          principalOf(ctx),
          ctx.body as CreateRequestV4,
          rawBodyOf(ctx),
          now(),
          admission,
          evidence,
          preflightSources,
        ),
      };
    },
    createCustomLaunchV4: (ctx) => {
      requireVerifiedEvidence();
      const answer = launches.create({
        principal: principalOf(ctx),
        idempotencyKey: idempotencyKeyOf(ctx),
        request: ctx.body as CreateRequestV4,
        rawBody: rawBodyOf(ctx),
      });
      return { status: answer.status, rawJson: answer.body };
    },
    listCustomLaunchesV4: (ctx) => {
      const { limit, cursor } = pageOf(ctx);
      return { status: 200, body: launches.list(principalOf(ctx), String(ctx.params.chainId), limit, cursor) };
    },
    putCustomLaunchSourceFileV4: (ctx) => {
      const answer = launches.deliverSourceFile({
        principal: principalOf(ctx),
        chainId: String(ctx.params.chainId),
        launchId: String(ctx.params.launchId),
        sha256: String(ctx.params.sha256),
        // An empty file arrives without a parsed body; its bytes are the empty buffer.
        bytes: Buffer.isBuffer(ctx.body) ? ctx.body : Buffer.alloc(0),
      });
      return { status: answer.status, body: answer.body };
    },
    getCustomLaunchV4: (ctx) => ({
      status: 200,
      body: launches.get(principalOf(ctx), String(ctx.params.chainId), String(ctx.params.launchId)),
    }),
  };
}
