import type { Address } from 'viem';
import type {
  CustomLaunchCapabilitiesV3,
  MultiRoleCustomLaunchCapabilitiesV2,
} from '../../../generated/types/service.ts';

type Bound = { address: Address };

/**
 * A lane's contracts as its capabilities publish them (the Deployment of
 * spec/schemas/custom-launch-capabilities.v3.schema.json and spec/schemas/multi-role-capabilities.v2.schema.json), or
 * null when the deployment has not bound them.
 */
export function laneDeploymentView(
  deployment: {
    contracts: { launchRouter: Bound; graphFactory: Bound; poolManager: Bound; permitAuthority: Bound };
  } | null,
): CustomLaunchCapabilitiesV3['deployment'] & MultiRoleCustomLaunchCapabilitiesV2['deployment'] {
  if (!deployment) return null;
  const { launchRouter, graphFactory, poolManager, permitAuthority } = deployment.contracts;
  return {
    launchRouter: launchRouter.address,
    graphFactory: graphFactory.address,
    poolManager: poolManager.address,
    permitAuthority: permitAuthority.address,
  };
}
