import type { MultiRoleCustomLaunchCreateRequestV2 } from '../../../generated/types/service.ts';
import type { Principal } from '../../auth/keys.ts';
import { inspectImage } from '../../core/image.ts';
import { multiRoleLaunchIntentHashOf, multiRoleProjectMetadataHashOf } from '../../core/multi-role-graph.ts';
import { ApiError } from '../../errors/api-error.ts';
import { checkLaneEnvelope, imageRuleIssues, type RuleIssue, rejectRuleIssues } from '../lanes/request-rules.ts';

/** What the request rules read besides the request: the lane's capabilities. */
export interface MultiRoleRuleContext {
  /** The one pinned solc long version (capabilities compilerVersion). */
  compilerVersion: string;
  /** The profile revisions that accept new submissions (capabilities profiles). */
  activeRevisions: readonly number[];
}

/** The server's limits of spec/schemas/multi-role-create-request.v2.schema.json that its schema cannot state. */
export const multiRoleRequestLimits = { requestBytes: 8_388_608 } as const;

/**
 * Request rules of the shared lane that need no chain, checked after schema validation by preflight and create,
 * before anything is persisted. A wallet key for another wallet than launchWallet is 403 WALLET_MISMATCH, a body over
 * 8,388,608 bytes 413 PAYLOAD_TOO_LARGE, a profile revision that is not active 409 PROFILE_NOT_ACTIVE; every other
 * broken rule is listed in one 400 INVALID_REQUEST: unique targetIds, each contractName's source path among
 * source.sources, the pinned compiler, funding.valueWei = liquidityWei + reserveWei, liquidity.tokenSupply at most
 * economics.totalSupply, an image that decodes as its PNG or single-frame GIF mediaType with matching sha256 and
 * byteLength, and projectMetadataHash and launchIntentHash over their canonical bytes.
 * Spec: the server rules in the `$comment` of spec/schemas/multi-role-create-request.v2.schema.json, for
 * preflightMultiRoleCustomLaunch and createMultiRoleCustomLaunch (spec/openapi/paths/multi-role-*.yaml).
 */
export function checkMultiRoleRequestRules(
  principal: Principal,
  request: MultiRoleCustomLaunchCreateRequestV2,
  rawBytes: Buffer,
  context: MultiRoleRuleContext,
): void {
  checkLaneEnvelope(principal, request.launchWallet, rawBytes, multiRoleRequestLimits.requestBytes);
  if (!context.activeRevisions.includes(request.profile.revision)) {
    throw new ApiError('PROFILE_NOT_ACTIVE', {
      message: `Profile revision ${request.profile.revision} is not active; active: ${context.activeRevisions.join(', ') || 'none'}.`,
    });
  }
  const issues: RuleIssue[] = [...graphIssues(request, context), ...amountIssues(request)];
  const metadata = request.projectMetadata;
  issues.push(...imageRuleIssues(metadata.image, '/projectMetadata/image', inspectImage));
  if (multiRoleProjectMetadataHashOf(request) !== request.projectMetadataHash) {
    issues.push({
      location: '/projectMetadataHash',
      message: 'does not match the canonical (RFC 8785) projectMetadata',
    });
  }
  if (multiRoleLaunchIntentHashOf(request) !== request.launchIntentHash) {
    issues.push({ location: '/launchIntentHash', message: 'does not match the canonical (RFC 8785) request' });
  }
  rejectRuleIssues(issues);
}

/** Target ids are unique; every contractName names a source of the request; the compiler is the pinned one. */
function graphIssues(request: MultiRoleCustomLaunchCreateRequestV2, context: MultiRoleRuleContext): RuleIssue[] {
  const issues: RuleIssue[] = [];
  if (request.source.compilerVersion !== context.compilerVersion) {
    issues.push({
      location: '/source/compilerVersion',
      message: `must be the pinned compiler ${context.compilerVersion}`,
    });
  }
  const ids = new Set<string>();
  request.graph.targets.forEach((target, i) => {
    if (ids.has(target.targetId)) {
      issues.push({ location: `/graph/targets/${i}/targetId`, message: 'target ids must be unique' });
    }
    ids.add(target.targetId);
    const sourcePath = target.contractName.slice(0, target.contractName.lastIndexOf(':'));
    if (!Object.hasOwn(request.source.sources, sourcePath)) {
      issues.push({ location: `/graph/targets/${i}/contractName`, message: `names ${sourcePath}, which is no source` });
    }
  });
  return issues;
}

/** The funding plan adds up, and the pool takes no more tokens than the economics declare. */
function amountIssues(request: MultiRoleCustomLaunchCreateRequestV2): RuleIssue[] {
  const issues: RuleIssue[] = [];
  const { valueWei, liquidityWei, reserveWei } = request.funding;
  if (BigInt(valueWei) !== BigInt(liquidityWei) + BigInt(reserveWei)) {
    issues.push({
      location: '/funding/valueWei',
      message: `is ${valueWei}; it must equal liquidityWei plus reserveWei (${BigInt(liquidityWei) + BigInt(reserveWei)})`,
    });
  }
  if (BigInt(request.liquidity.tokenSupply) > BigInt(request.economics.totalSupply)) {
    issues.push({
      location: '/liquidity/tokenSupply',
      message: `is ${request.liquidity.tokenSupply}; it must be at most economics.totalSupply (${request.economics.totalSupply})`,
    });
  }
  return issues;
}
