import type { BaseDeployment } from '../../chain/base-deployment.ts';
import type { Config } from '../../config.ts';
import { baseReviewContextOf, reviewBaseLayerLaunch } from './admission-review.ts';
import { buildBaseGraph } from './build.ts';
import type { BaseLaunchRules } from './lifecycle-rules.ts';

/**
 * The base-layer admission rules of this server: the pinned rebuild (buildBaseGraph, src/domain/base-layer/build.ts;
 * a failed or mismatched build fails the launch, remediation: rebuild and submit a new request) and the admission
 * review (reviewBaseLayerLaunch, src/domain/base-layer/admission-review.ts) against the bound base deployment under
 * the given rule set, with the configured fee certifications (V3_FEE_CERTIFICATIONS). Without a base deployment
 * the build still runs and a review throws (the lifecycle retries it as a failed step).
 */
export function pinnedBaseLaunchRules(
  deployment: BaseDeployment | null,
  feeCertifications: Config['v3']['feeCertifications'],
): BaseLaunchRules {
  return {
    build: async (request) => {
      const built = await buildBaseGraph(request);
      if (built.ok) return { ok: true, build: built };
      const where = built.targetId ? ` (target ${built.targetId})` : '';
      return {
        ok: false,
        code: built.code,
        message: `${built.message}${where}`,
        remediation: 'Rebuild the graph with the pinned compiler and submit a new request.',
      };
    },
    review: async (request, build, ruleSet) => {
      if (!deployment) throw new Error('BASE_DEPLOYMENT_PATH is not set: no base-layer review');
      const review = reviewBaseLayerLaunch(
        request,
        build,
        baseReviewContextOf(deployment, ruleSet.retiredRules, feeCertifications),
      );
      return {
        findingCodes: review.findingCodes,
        currentHardBlocks: review.hardBlocks,
        feeCertification: review.feeCertification,
      };
    },
  };
}
