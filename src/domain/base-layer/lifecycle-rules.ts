import type { Hex } from 'viem';
import type { CustomLaunchCreateRequestV3, CustomLaunchResourceV3 } from '../../../generated/types/service.ts';

/** The server's fee-certification decision (spec/schemas/custom-launch-resource.v3.schema.json FeeCertification). */
export type BaseFeeCertification = NonNullable<CustomLaunchResourceV3['feeCertification']>;

/** The pinned build of one graph target, in request order: the init code the router deploys. */
export interface BaseBuiltTarget {
  targetId: string;
  initCode: Hex;
}

/** What the validating step's rebuild concluded. */
export type BaseBuildOutcome =
  | {
      ok: true;
      /** Every target's init code (creation code and constructorArgs), in request order. */
      targets: BaseBuiltTarget[];
      /** The build as the review reads it again (stored in build_json, for the operator's re-review). */
      build: unknown;
    }
  | { ok: false; code: string; message: string; remediation: string };

/** The admission review of a built launch under one rule-set revision. */
export interface BaseReview {
  /** Every finding code of the review (hard blocks included), at most 64, unique. */
  findingCodes: string[];
  /** The hard-blocking findings the current rule set has not retired: any of them means action_required. */
  currentHardBlocks: string[];
  feeCertification: BaseFeeCertification;
}

/**
 * The base-layer admission rules the lifecycle runs (src/domain/base-layer/build.ts and admission-review.ts): the
 * pinned rebuild of the graph and the review of the built graph under the current rule set. The composition root
 * (src/services.ts) and the operator CLI give the real ones; the lifecycle only calls them.
 */
export interface BaseLaunchRules {
  build(request: CustomLaunchCreateRequestV3): Promise<BaseBuildOutcome>;
  review(
    request: CustomLaunchCreateRequestV3,
    build: unknown,
    ruleSet: { revision: number; retiredRules: readonly string[] },
  ): Promise<BaseReview>;
}
