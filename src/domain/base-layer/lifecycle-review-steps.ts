import type { Address } from 'viem';
import { laneFailureJson } from '../lanes/launch-table.ts';
import type { BaseLaunchRow } from './launch-store.ts';
import {
  type BaseFundingAuthorizationView,
  type BaseLifecycleContext,
  baseRequestOf,
  type StoredBaseBuild,
  storedBuildOf,
} from './lifecycle-context.ts';
import { fundingTypedData } from './lifecycle-funding.ts';
import type { BaseStepResult } from './lifecycle-jobs.ts';
import { currentBaseRuleSet } from './rule-sets.ts';

/** Without chain 1 configured a reviewed launch waits with this code. */
export const chainNotConfiguredCode = 'CHAIN_NOT_CONFIGURED';

/**
 * validating: rebuild the graph with the pinned compiler (a failed or mismatched build fails the launch with its code
 * and remediation), then the admission review under the current rule set: `pending_review` with the build, the
 * finding codes, the fee certification and the rule-set revision.
 */
export async function validatingStep(ctx: BaseLifecycleContext, row: BaseLaunchRow): Promise<BaseStepResult> {
  const request = baseRequestOf(row);
  const built = await ctx.rules.build(request);
  if (!built.ok) {
    return {
      kind: 'move',
      to: 'failed',
      fields: { failure_json: laneFailureJson(built.code, built.message, built.remediation) },
      next: 'done',
    };
  }
  const ruleSet = currentBaseRuleSet(ctx.db);
  const review = await ctx.rules.review(request, built.build, ruleSet);
  const stored: StoredBaseBuild = { build: built.build };
  return {
    kind: 'move',
    to: 'pending_review',
    fields: {
      build_json: JSON.stringify(stored),
      finding_codes_json: JSON.stringify(review.findingCodes.slice(0, 64)),
      fee_certification_json: JSON.stringify(review.feeCertification),
      rule_set_revision: ruleSet.revision,
    },
    next: 'scheduled',
  };
}

/**
 * pending_review: the review again under the current rule set; a current hard block gives `action_required` (its
 * codes shown). Otherwise, without chain 1 the launch waits (CHAIN_NOT_CONFIGURED); an eip3009 launch gets its
 * typed data (`awaiting_funding_authorization`, the job idle until the signature operation wakes it); a native one
 * goes to `prepared`.
 */
export async function pendingReviewStep(ctx: BaseLifecycleContext, row: BaseLaunchRow): Promise<BaseStepResult> {
  const request = baseRequestOf(row);
  const ruleSet = currentBaseRuleSet(ctx.db);
  const review = await ctx.rules.review(request, storedBuildOf(row).build, ruleSet);
  const reviewed = {
    finding_codes_json: JSON.stringify(review.findingCodes.slice(0, 64)),
    fee_certification_json: JSON.stringify(review.feeCertification),
    rule_set_revision: ruleSet.revision,
  };
  if (review.currentHardBlocks.length > 0) {
    return { kind: 'move', to: 'action_required', fields: reviewed, next: 'idle' };
  }
  if (!ctx.chain) return { kind: 'wait', code: chainNotConfiguredCode };
  if (request.funding.mode === 'native') {
    return { kind: 'move', to: 'prepared', fields: reviewed, next: 'scheduled' };
  }
  const domain = await ctx.chain.tokenDomain(request.funding.token as Address);
  const validBefore = BigInt(Math.floor(ctx.now() / 1000) + ctx.fundingWindowSeconds);
  const funding: BaseFundingAuthorizationView = {
    token: request.funding.token,
    amount: request.funding.amount,
    recipient: request.funding.recipient,
    typedData: fundingTypedData(row, domain, ctx.chain.router, request.funding.amount, validBefore),
    signature: null,
    verifiedAt: null,
    lastRejection: null,
  };
  return {
    kind: 'move',
    to: 'awaiting_funding_authorization',
    fields: { ...reviewed, funding_authorization_json: JSON.stringify(funding) },
    next: 'idle',
  };
}
