import { type Hex, parseAbi } from 'viem';
import type { MultiRoleCustomLaunchCreateRequestV2 } from '../../generated/types/service.ts';
import { basePoolKey, poolIdOf, predictBaseGraphTarget } from './base-graph.ts';
import { digestOf } from './request-hashes.ts';

/*
 * The shared-lane (MultiRole V2) graph on chain 4663, as contracts/multi-role/MultiRoleLaunchRouter.sol builds it:
 * the router deploys each target through the lane's graph factory (an instance of contracts/base/BaseGraphFactory.sol)
 * with CREATE2 from its init code, salted with keccak256(abi.encode(router, salt)); the token_hook is both the pool's
 * currency1 and its hooks. Pure: the server, the packer and the CLI share it.
 */

/**
 * The lane's economics interface: a token_hook whose runtime code answers it with exactly the request's economics
 * has known economics (spec/schemas/multi-role-create-request.v2.schema.json Economics). rateMode 0 is additive,
 * 1 inclusive.
 */
export const multiRoleEconomicsAbi = parseAbi([
  'function multiRoleEconomics() view returns (uint256 totalSupply, uint8 rateMode, uint32 buyRateHundredthsBip, uint32 sellRateHundredthsBip, address feeRecipient)',
]);

/** The rateMode numbers of multiRoleEconomics(). */
export const multiRoleRateModes = ['additive', 'inclusive'] as const;

/** The request's one token_hook target. */
export function tokenHookTargetOf(
  request: Pick<MultiRoleCustomLaunchCreateRequestV2, 'graph'>,
): MultiRoleCustomLaunchCreateRequestV2['graph']['targets'][number] {
  const target = request.graph.targets.find((t) => t.role === 'token_hook');
  if (!target) throw new Error('the graph has no token_hook target');
  return target;
}

/** The token_hook address and the pool id a shared-lane request's graph yields under `factory` and `router`. */
export function predictMultiRoleLaunch(
  request: Pick<MultiRoleCustomLaunchCreateRequestV2, 'graph' | 'liquidity'>,
  factory: Hex,
  router: Hex,
): { tokenHook: Hex; poolId: Hex } {
  const target = tokenHookTargetOf(request);
  const tokenHook = predictBaseGraphTarget(factory, router, target.salt as Hex, target.initCodeHash as Hex);
  const poolId = poolIdOf(basePoolKey(tokenHook, tokenHook, request.liquidity.lpFee, request.liquidity.tickSpacing));
  return { tokenHook, poolId };
}

/** RFC 8785 (JCS) SHA-256 of projectMetadata (projectMetadataHash of the shared-lane request). */
export function multiRoleProjectMetadataHashOf(
  request: Pick<MultiRoleCustomLaunchCreateRequestV2, 'projectMetadata'>,
): string {
  return digestOf(request.projectMetadata);
}

/** RFC 8785 (JCS) SHA-256 of the shared-lane request without launchIntentHash (its launchIntentHash). */
export function multiRoleLaunchIntentHashOf(request: MultiRoleCustomLaunchCreateRequestV2): string {
  const { launchIntentHash: _ignored, ...rest } = request;
  return digestOf(rest);
}
