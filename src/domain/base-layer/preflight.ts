import type { CustomLaunchCreateRequestV3, CustomLaunchPreflightV3 } from '../../../generated/types/service.ts';
import type { Principal } from '../../auth/keys.ts';
import { digestOf } from '../../core/request-hashes.ts';
import { type BaseLayerReviewContext, baseFeeCertification, reviewBaseLayerLaunch } from './admission-review.ts';
import { buildBaseGraph } from './build.ts';
import { type BaseLayerRuleContext, checkBaseLayerRequestRules } from './request-rules.ts';

/** Everything preflight reads besides the request: the rules' context and the review's. */
export type BaseLayerPreflightContext = BaseLayerRuleContext & BaseLayerReviewContext;

/**
 * preflightCustomLaunchV3 (spec/openapi/paths/v3-custom-launches-preflight.yaml): the request rules (an ApiError on
 * a broken one), then the server's build of every compilation unit, then the admission review, reported without side
 * effects: nothing is persisted, no nonce allocated, no quota consumed. A build failure or a current hard block is
 * `unsupported` with its blocking codes; otherwise the request is deployable and TX_SIMULATION_PENDING warns that
 * the exact simulation on chain 1 follows creation. The shape is spec/schemas/custom-launch-preflight.v3.schema.json.
 */
export async function preflightBaseLayer(
  principal: Principal,
  request: CustomLaunchCreateRequestV3,
  rawBytes: Buffer,
  context: BaseLayerPreflightContext,
): Promise<CustomLaunchPreflightV3> {
  checkBaseLayerRequestRules(principal, request, rawBytes, context);
  const build = await buildBaseGraph(request);
  const verdict = build.ok
    ? reviewBaseLayerLaunch(request, build, context)
    : buildFailureVerdict(request, build.code, context);
  const blocking = verdict.hardBlocks;
  const deployable = blocking.length === 0 && verdict.needsEvidence.length === 0;
  const warnings = [...verdict.warnings, ...(deployable ? ['TX_SIMULATION_PENDING'] : [])].sort();
  const disposition: CustomLaunchPreflightV3['disposition'] =
    blocking.length > 0
      ? 'unsupported'
      : verdict.needsEvidence.length > 0
        ? 'needs_evidence'
        : warnings.length > 0
          ? 'supported_with_warnings'
          : 'supported';
  return {
    schemaVersion: 'platform.custom-launch-preflight.v3',
    chainId: '1',
    caip2: 'eip155:1',
    launchProfileVersion: request.profile.version,
    requestHash: digestOf(request),
    disposition,
    launchEligibility: { deployable, routable: deployable, featured: false },
    blockingFindingCodes: blocking,
    warningFindingCodes: warnings,
    needsEvidenceFindingCodes: verdict.needsEvidence,
    feeCertification: verdict.feeCertification,
    safetyClaim: false,
    feeBehaviorClaim: false,
  };
}

/** A graph that does not build as declared blocks with its build code; the fee decision still stands. */
function buildFailureVerdict(
  request: CustomLaunchCreateRequestV3,
  code: 'V3_BUILD_FAILED' | 'V3_INIT_CODE_MISMATCH',
  context: BaseLayerReviewContext,
) {
  const { feeCertification, warning } = baseFeeCertification(request, context);
  return { hardBlocks: [code], warnings: warning ? [warning] : [], needsEvidence: [] as string[], feeCertification };
}
