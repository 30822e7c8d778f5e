import type {
  MultiRoleCustomLaunchCreateRequestV2,
  MultiRoleCustomLaunchPreflightV2,
} from '../../../generated/types/service.ts';
import type { Principal } from '../../auth/keys.ts';
import { digestOf } from '../../core/request-hashes.ts';
import { ApiError } from '../../errors/api-error.ts';
import { dispositionOf, type MultiRoleReviewContext, reviewMultiRoleRequest } from './admission-review.ts';
import { type BuiltMultiRoleGraph, buildMultiRoleGraph } from './build.ts';
import { checkMultiRoleRequestRules, type MultiRoleRuleContext } from './request-rules.ts';

/** Everything preflight reads besides the request: the rules' context and the review's. */
export type MultiRolePreflightContext = MultiRoleRuleContext & MultiRoleReviewContext;

/**
 * preflightMultiRoleCustomLaunch (spec/openapi/paths/multi-role-preflight.yaml): the request rules (an ApiError on a
 * broken one), the server's build of the source, then the review, reported without side effects: nothing is
 * persisted, no nonce allocated, no quota consumed, nothing broadcast. A build that fails is `unsupported` with its
 * blocking code; a chain-4663 provider that fails the review is 503 UNAVAILABLE (retry the same bytes). The shape is spec/schemas/multi-role-preflight.v2.schema.json.
 */
export async function preflightMultiRole(
  principal: Principal,
  request: MultiRoleCustomLaunchCreateRequestV2,
  rawBytes: Buffer,
  context: MultiRolePreflightContext,
): Promise<MultiRoleCustomLaunchPreflightV2> {
  checkMultiRoleRequestRules(principal, request, rawBytes, context);
  const build = await buildMultiRoleGraph(request);
  const findings = build.ok
    ? (await reviewed(request, build, context)).findings
    : [{ code: build.code, severity: 'blocking' as const, missingVerificationRequirements: [] }];
  return {
    schemaVersion: 'platform.multi-role-custom-launch-preflight.v2',
    chainId: '4663',
    caip2: 'eip155:4663',
    requestHash: digestOf(request),
    disposition: dispositionOf(findings),
    findings,
    safetyClaim: false,
    feeBehaviorClaim: false,
  };
}

/** The review; a chain-4663 provider that fails it is a retryable 503 UNAVAILABLE, never a made-up verdict. */
async function reviewed(
  request: MultiRoleCustomLaunchCreateRequestV2,
  build: BuiltMultiRoleGraph,
  context: MultiRolePreflightContext,
) {
  try {
    return await reviewMultiRoleRequest(request, build, context);
  } catch (err) {
    if (!context.chain) throw err;
    throw new ApiError('UNAVAILABLE', {
      message: `Chain 4663 could not be read for the review (${(err as Error).message.slice(0, 200)}); send the same request again after Retry-After.`,
    });
  }
}
