import type { CustomLaunchCreateRequestV3 } from '../../../generated/types/service.ts';
import { readBaseDeployment } from '../../chain/base-deployment.ts';
import type { Config } from '../../config.ts';
import { reviewBaseLayerLaunch } from './admission-review.ts';
import { type BaseGraphBuild, buildBaseGraph } from './build.ts';
import type { BaseLaunchRules } from './lifecycle-rules.ts';

type Built = Extract<BaseGraphBuild, { ok: true }>;

/**
 * The base-layer admission rules of this server: the pinned rebuild (buildBaseGraph, src/domain/base-layer/build.ts;
 * a failed or mismatched build fails the launch, remediation: rebuild and submit a new request) and the admission
 * review (reviewBaseLayerLaunch, src/domain/base-layer/admission-review.ts) against the bound base deployment
 * (BASE_DEPLOYMENT_PATH: its router, graph factory and PoolManager) under the given rule set, with the configured
 * fee certifications (V3_FEE_CERTIFICATIONS).
 */
export function pinnedBaseLaunchRules(config: Config): BaseLaunchRules {
  const deploymentOf = () => {
    if (!config.baseDeploymentPath) throw new Error('BASE_DEPLOYMENT_PATH is not set: no base-layer review');
    return readBaseDeployment(config.baseDeploymentPath);
  };
  return {
    build: async (request: CustomLaunchCreateRequestV3) => {
      const built = await buildBaseGraph(request);
      if (!built.ok) {
        const where = built.targetId ? ` (target ${built.targetId})` : '';
        return {
          ok: false,
          code: built.code,
          message: `${built.message}${where}`,
          remediation: 'Rebuild the graph with the pinned compiler and submit a new request.',
        };
      }
      return {
        ok: true,
        targets: built.targets.map((t) => ({ targetId: t.targetId, initCode: t.initCode })),
        build: built,
      };
    },
    review: async (request, build, ruleSet) => {
      const deployment = deploymentOf();
      const review = reviewBaseLayerLaunch(request, build as Built, {
        retiredRules: ruleSet.retiredRules,
        canonicalPoolManager: deployment.contracts.poolManager.address,
        deployment: {
          launchRouter: deployment.contracts.launchRouter.address,
          graphFactory: deployment.contracts.graphFactory.address,
        },
        feeCertifications: config.v3.feeCertifications,
      });
      return {
        findingCodes: review.findingCodes,
        currentHardBlocks: review.hardBlocks,
        feeCertification: review.feeCertification,
      };
    },
  };
}
