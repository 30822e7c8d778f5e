import type { CustomLaunchCreateRequestV3, CustomLaunchResourceV3 } from '../../../generated/types/service.ts';
import type { BuiltBaseGraph } from './build.ts';

/** The server's fee-certification decision (spec/schemas/custom-launch-resource.v3.schema.json FeeCertification). */
export type BaseFeeCertification = NonNullable<CustomLaunchResourceV3['feeCertification']>;

/** What the validating step's rebuild concluded. */
export type BaseBuildOutcome =
  | {
      ok: true;
      /** Every target's init code and runtime code, in request order (stored in build_json for later reviews). */
      build: BuiltBaseGraph;
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
    build: BuiltBaseGraph,
    ruleSet: { revision: number; retiredRules: readonly string[] },
  ): Promise<BaseReview>;
}
