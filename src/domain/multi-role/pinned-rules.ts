import type { MultiRoleDeployment } from '../../chain/multi-role-deployment.ts';
import { reviewMultiRoleRequest } from './admission-review.ts';
import { buildMultiRoleGraph } from './build.ts';
import type { MultiRoleLaunchRules } from './lifecycle-context.ts';

/**
 * The shared lane's admission rules as the lifecycle runs them: the pinned rebuild (buildMultiRoleGraph) and the
 * review with its chain checks (reviewMultiRoleRequest) against the lane's bound deployment, whose PoolManager is the
 * canonical one (else `canonicalPoolManager`). Spec: the `$comment` of
 * spec/schemas/multi-role-create-request.v2.schema.json.
 */
export function pinnedMultiRoleLaunchRules(
  deployment: MultiRoleDeployment | null,
  canonicalPoolManager: string,
): MultiRoleLaunchRules {
  const poolManager = multiRolePoolManager(deployment, canonicalPoolManager);
  return {
    build: (request) => buildMultiRoleGraph(request),
    review: (request, build, chain) =>
      reviewMultiRoleRequest(request, build, { deployment, chain, canonicalPoolManager: poolManager }),
  };
}

/** The pool manager the shared lane's review holds hooks to: the bound deployment's, else the configured canonical one. */
export function multiRolePoolManager(deployment: MultiRoleDeployment | null, canonicalPoolManager: string): string {
  return deployment?.contracts.poolManager.address ?? canonicalPoolManager;
}
