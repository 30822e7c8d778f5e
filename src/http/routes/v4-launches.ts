import type {
  CustomLaunchCreateRequestV4,
  PermitReissueDispositionRequestV1,
} from '../../../generated/types/service.ts';
import { minimumInitialBuyWei } from '../../chain/price-feed.ts';
import { fundingNonceSeenInOtherRequest } from '../../domain/launches/funding-nonce-reuse.ts';
import { decidePermitReissue } from '../../domain/launches/permit-reissue.ts';
import { type PreflightSources, preflightV4 } from '../../domain/launches/preflight.ts';
import { evidenceCheck } from '../../domain/public/deployment-evidence-check.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { Services } from '../../services.ts';
import {
  type BodyPolicy,
  idempotencyKeyOf,
  jsonBody,
  type OperationHandler,
  pageOf,
  principalOf,
  type RouteTable,
  rawBodyOf,
  routesOf,
} from '../operation.ts';

/**
 * A delivered source file is raw bytes, at most the per-file bound of the manifest (custom-launch-create-request.v4
 * SourceBundleFile.byteLength), and never parsed as JSON: a body of another media type meets the validator's 415.
 */
const sourceFileBody: BodyPolicy = { kind: 'raw', mediaType: 'application/octet-stream', limit: 5_242_880 };

/**
 * Routes of the authenticated V4 launch operations (spec/openapi/paths/v4-custom-launches.yaml,
 * v4-custom-launches-preflight.yaml, v4-custom-launch.yaml, v4-custom-launch-source-file.yaml,
 * v4-permit-reissue-disposition.yaml): wallet or partner keys, JSON bodies within V4_BODY_LIMIT_BYTES except the raw
 * source file.
 */
export function v4LaunchRoutes(services: Services): RouteTable {
  const { putCustomLaunchSourceFileV4, ...jsonOperations } = v4LaunchHandlers(services);
  return {
    ...routesOf(jsonOperations, { body: jsonBody(services.config.v4BodyLimitBytes), auth: 'wallet' }),
    putCustomLaunchSourceFileV4: { handler: putCustomLaunchSourceFileV4, body: sourceFileBody, auth: 'wallet' },
  };
}

function v4LaunchHandlers(services: Services) {
  const { launches, now, priceFeed, evidence } = services;
  const admission = { canonicalPoolManager: services.config.canonicalPoolManager };
  const preflightSources: PreflightSources = {
    binder: services.referenceBinder,
    fundingNonceConflict: (request) => fundingNonceSeenInOtherRequest(services.db, request),
  };
  /** Preflight and create need verified deployment evidence on a server bound to a chain. */
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
          ctx.body as CustomLaunchCreateRequestV4,
          rawBodyOf(ctx),
          now(),
          admission,
          evidence,
          preflightSources,
        ),
      };
    },
    createCustomLaunchV4: async (ctx) => {
      requireVerifiedEvidence();
      const answer = await launches.create({
        principal: principalOf(ctx),
        idempotencyKey: idempotencyKeyOf(ctx),
        request: ctx.body as CustomLaunchCreateRequestV4,
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
    decidePermitReissueV4: (ctx) => {
      const answer = decidePermitReissue(
        { db: services.db, now, validationDeadlineMs: services.config.lifecycle.validationDeadlineMs },
        {
          principal: principalOf(ctx),
          launchId: String(ctx.params.launchId),
          idempotencyKey: idempotencyKeyOf(ctx),
          request: ctx.body as PermitReissueDispositionRequestV1,
          rawBody: rawBodyOf(ctx),
        },
      );
      return { status: answer.status, rawJson: answer.body };
    },
    getCustomLaunchV4: (ctx) => {
      const { resource, json } = launches.detail(
        principalOf(ctx),
        String(ctx.params.chainId),
        String(ctx.params.launchId),
      );
      return { status: 200, body: resource, rawJson: json };
    },
  } satisfies Record<string, OperationHandler>;
}
